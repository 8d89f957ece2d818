"""The probe's lesson (:class:`engine.core.declaration.Lesson`): the isotropy paper's claim, what to watch,
and its claims as data, checked by ``python -m engine lessons check`` (the demo preset). Its numbers are
placeholders filled from the recorded runs of the claims (:mod:`engine.lessons.numbers`)."""

from __future__ import annotations

from functools import partial

from engine.core.declaration import Lesson
from engine.core.lesson_claims import Claim
from engine.core.measures import PARTITION_ISOTROPY, RANKME

DEMO = "Demo: clusters form"  # engine.probe.presets.DEMO (its run: "demo-clusters")
_RUN = "demo-clusters"
#: a claim about the demo preset's run
_demo = partial(Claim, DEMO, _RUN)

CLAIMS = (
    _demo(
        "isoscore",
        "falls",
        "Mickus et al. (2024): training the embeddings for a classifier costs isotropy (IsoScore falls).",
        source="paper",
        key="paper_iso",
    ),
    _demo("silhouette", "rises", "The silhouette of the demo topics rises.", by=0.1, key="sil"),
    _demo("silhouette", "monotone", "The silhouette rises step after step.", way="rises", key="sil_steps"),
    _demo("isoscore", "falls", "IsoScore falls while the silhouette rises.", by=0.05, key="iso"),
    _demo("isoscore", "monotone", "IsoScore falls step after step.", way="falls", key="iso_steps"),
    _demo(
        "isoscore",
        "correlates",
        "IsoScore and the silhouette move in opposite directions over the run: r and ρ at most −0.8.",
        way="opposite",
        by=0.8,
        key="corr",
    ),
    _demo("accuracy", "rises", "The classifier's accuracy rises.", by=0.5, key="acc"),
    _demo("loss", "monotone", "The loss falls step after step.", way="falls", key="loss"),
    _demo(
        RANKME,
        "falls",
        "RankMe (the effective rank) falls as the clusters form (by more than 20).",
        by=20.0,
        key="rank",
    ),
    _demo("uniformity", "rises", "Uniformity rises (less uniform) as the points gather.", by=0.3, key="unif"),
    _demo("alignment", "falls", "Class alignment falls as each class gathers.", by=0.3, key="align"),
    _demo(
        "average_cosine",
        "falls",
        "The average cosine falls: the classes come to point away from each other.",
        by=0.01,
        key="cos",
    ),
    _demo(
        PARTITION_ISOTROPY,
        "falls",
        "Partition isotropy falls as a few directions come to dominate.",
        by=0.05,
        key="part",
    ),
)

LESSON = Lesson(
    title="Isotropy vs clusters",
    intro=(
        "Sentence embeddings become parameters of a linear classifier (full-batch Adam). After every update "
        "the lab measures IsoScore (how evenly all directions are used) and the silhouette (how well the "
        "classes cluster). Mickus et al. (2024) found that the two move in opposite directions: clusters "
        "cost isotropy. The demo preset shows it: in {iso.steps} updates IsoScore fell from {iso.start} to "
        "{iso.end} while the silhouette rose from {sil.start} to {sil.end} (r {corr.r:.2f}, "
        "ρ {corr.rho:.2f} over the steps). It is a finding of these setups, not a law: at the paper's length "
        "the lab matches the paper's figures in setups (i) and (ii) but not in (iii) and (iv), run here on "
        "the encoder's word-piece vectors; in (iv) IsoScore turns and rises again with the silhouette after "
        "a few hundred updates (the claims table on the Overview page; docs/results.md)."
    ),
    watch=(
        "the silhouette rises while IsoScore falls, step after step (Spearman ρ against the step "
        "{sil_steps.rho:.2f} and {iso_steps.rho:.2f} in the demo);",
        "the IsoScore–silhouette scatter lines up on a falling diagonal (r {corr.r:.2f}, ρ {corr.rho:.2f});",
        "in the UMAP film the demo's topics, already apart at the start (silhouette {sil.start}), tighten "
        "into separate islands.",
    ),
    measures={
        "isoscore": "falls while the silhouette rises: the classifier squeezes the points onto a few "
        "directions. With fewer items than dimensions (n ≤ d) it cannot exceed (n − 2)/(d − 1): use more "
        "items, or read IsoScore*.",
        "isoscore_star": "read it instead of IsoScore when the Limit leaves fewer items than dimensions.",
        "silhouette": "climbs as the classes pull apart ({sil.start} → {sil.end} in the demo); in the demo "
        "its rise mirrors IsoScore's fall (r {corr.r:.2f}, ρ {corr.rho:.2f}), though not in every setup.",
        "alignment": "the probe's alignment is its class alignment (same-class pairs as the positives; see "
        "Class alignment): its charts and lessons name it so, and it shares the alignment–uniformity plane "
        "with SimCSE runs in Compare and in the lesson to take home.",
        "uniformity": "rises (less uniform) as the points gather into a few class clusters "
        "({unif.start} → {unif.end} in the demo).",
        "class_alignment": "falls as each class gathers ({align.start} → {align.end} in the demo); at "
        "its top, same-class points are no closer than random directions.",
        "loss": "falls step after step as the classifier separates the classes ({loss.start} → {loss.end} "
        "in the demo); a loss that grows (or becomes NaN) means the learning rate is too high.",
        "accuracy": "rises ({acc.start} → {acc.end} in the demo): the embeddings themselves are trained, "
        "so every class can be separated.",
        "micro_f1": "in the multi-label setups (WordNet parts of speech, supersenses) it counts single "
        "labels, where the exact-match accuracy counts whole label sets.",
        RANKME: "falls as the clusters form ({rank.start} → {rank.end} in the demo), yet stays "
        "far above the number of classes: the classifier needs only as many directions as classes, and "
        "the others keep much of their spread.",
        "average_cosine": "falls in the demo ({cos.start} → {cos.end}): the points of one class come to "
        "point the same way and the classes away from each other.",
        PARTITION_ISOTROPY: "falls as a few directions come to dominate ({part.start} → {part.end} in "
        "the demo).",
        "spectrum": "concentrates: its head grows and its tail thins as RankMe falls, without "
        "shrinking to as many directions as there are classes.",
    },
    claims=CLAIMS,
)
