"""The probe's lesson (:class:`engine.experiment.Lesson`): the isotropy paper's claim, what to watch, and
its claims as data, checked by ``python -m engine lessons check`` (the demo preset)."""

from __future__ import annotations

from engine.experiment import Lesson
from engine.lesson_claims import Claim

DEMO = "Demo: clusters form"  # engine.probe.presets.DEMO (its run: "demo-clusters")
_RUN = "demo-clusters"

CLAIMS = (
    Claim(
        DEMO,
        _RUN,
        "isoscore",
        "falls",
        "Mickus et al. (2024): training the embeddings for a classifier costs isotropy (IsoScore falls).",
        source="paper",
    ),
    Claim(DEMO, _RUN, "silhouette", "rises", "The silhouette of the demo topics rises.", by=0.1),
    Claim(DEMO, _RUN, "isoscore", "falls", "IsoScore falls while the silhouette rises.", by=0.01),
    Claim(DEMO, _RUN, "accuracy", "rises", "The classifier's accuracy rises.", by=0.1),
    Claim(DEMO, _RUN, "effective_rank", "falls", "The effective rank falls as the clusters form."),
    Claim(DEMO, _RUN, "uniformity", "rises", "Uniformity rises (less uniform) as the points gather."),
    Claim(DEMO, _RUN, "alignment", "falls", "Class alignment falls as each class gathers.", by=0.1),
)

LESSON = Lesson(
    title="Isotropy vs clusters",
    intro=(
        "Sentence embeddings become parameters of a linear classifier (full-batch Adam). After every update "
        "the lab measures IsoScore (how evenly all directions are used) and the silhouette (how well the "
        "classes cluster). Mickus et al. (2024) found that the two move in opposite directions: clusters "
        "cost isotropy. The demo preset shows it: in 150 updates IsoScore fell from 0.21 to 0.015 while the "
        "silhouette rose from 0.07 to 0.63 (r −0.90, ρ −1.00 over the steps)."
    ),
    watch=(
        "the silhouette rises while IsoScore falls, step after step;",
        "the IsoScore–silhouette scatter lines up on a falling diagonal (r and ρ close to −1);",
        "in the UMAP film the classes pull apart into separate islands.",
    ),
    measures={
        "isoscore": "falls while the silhouette rises: the classifier squeezes the points onto a few "
        "directions. With fewer items than dimensions (n ≤ d) it cannot exceed (n − 2)/(d − 1): use more "
        "items, or read IsoScore*.",
        "isoscore_star": "read it instead of IsoScore when the Limit leaves fewer items than dimensions.",
        "silhouette": "climbs from about 0 towards 1 as the classes pull apart; its rise mirrors IsoScore's "
        "fall (the scatter's r and ρ near −1).",
        "alignment": "the probe's alignment is its class alignment (same-class pairs as the positives; see "
        "Class alignment): its charts and lessons name it so, and it shares the alignment–uniformity plane "
        "with SimCSE runs in Compare and in the lesson to take home.",
        "uniformity": "rises (less uniform) as the points gather into a few class clusters.",
        "class_alignment": "falls as each class gathers; 2 means same-class points are no closer than random "
        "directions.",
        "loss": "falls towards 0 as the classifier separates the classes; a loss that grows (or becomes NaN) "
        "means the learning rate is too high.",
        "accuracy": "reaches 1 quickly: the embeddings themselves are trained, so every class can be "
        "separated.",
        "micro_f1": "in the multi-label setups (WordNet parts of speech, supersenses) it rises before the "
        "exact-match accuracy does: single labels come right before whole label sets.",
        "effective_rank": "drops towards the number of classes as the clusters form.",
        "average_cosine": "moves with the classes: the points of one class come to point the same way.",
        "partition_isotropy": "falls as a few directions come to dominate.",
        "spectrum": "concentrates on about as many directions as there are classes.",
    },
    claims=CLAIMS,
)
