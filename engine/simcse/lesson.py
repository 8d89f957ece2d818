"""SimCSE's lesson (:class:`engine.core.declaration.Lesson`) with its claims as data, checked by ``python -m
engine lessons check`` (the Figure-2 preset), and the same-mask switch explained."""

from __future__ import annotations

from engine.core.declaration import Lesson
from engine.core.lesson_claims import Claim
from engine.core.measures import PARTITION_ISOTROPY, RANKME

FIGURE2 = "SimCSE Figure 2"  # engine.simcse.presets.FIGURE2
_RUNS = ("unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word")

_KEYS = {"unsup-simcse": "unsup", "no-dropout": "nodrop", "fixed-0.1": "fixed", "delete-one-word": "delete"}

CLAIMS = (
    Claim(
        FIGURE2,
        "unsup-simcse",
        "sts_spearman",
        "above",
        "Gao et al. (2021): dropout noise beats no dropout on STS-B dev.",
        than="no-dropout",
        source="paper",
        key="paper_sts",
        reported={"dropout": 82.5, "no_dropout": 71.1},
    ),
    Claim(
        FIGURE2,
        "no-dropout",
        "sts_spearman",
        "above",
        "Gao et al. (2021): no dropout beats the same mask (fixed 0.1) on STS-B dev.",
        than="fixed-0.1",
        source="paper",
        key="paper_mask",
        reported={"no_dropout": 71.1, "fixed": 43.6},
    ),
    Claim(
        FIGURE2,
        "unsup-simcse",
        "alignment",
        "below",
        "Gao et al. (2021, Fig. 2): with identical views (no dropout) alignment ends worse than with "
        "dropout.",
        than="no-dropout",
        source="paper",
        key="paper_align",
    ),
    *(
        Claim(
            FIGURE2,
            run,
            "uniformity",
            "falls",
            f"Gao et al. (2021, Fig. 2): uniformity falls (improves) in every run; here the {run} run.",
            by=0.005,
            source="paper",
            key=f"unif_{_KEYS[run]}",
        )
        for run in _RUNS
    ),
    *(
        Claim(
            FIGURE2,
            run,
            "alignment",
            "rises",
            f"Alignment rises (worsens) in the {run} run.",
            by=0.005,
            key=f"align_{_KEYS[run]}",
        )
        for run in _RUNS
    ),
    Claim(
        FIGURE2,
        "unsup-simcse",
        RANKME,
        "rises",
        "RankMe rises as contrastive training spreads the embeddings.",
        key="rank",
    ),
)

#: the same-mask switch in plain words, with a readable reference (the views' own line cites an issue number)
SAME_MASK = (
    "Both views of a sentence share one dropout mask, the paper's “fixed 0.1”: the sentence is encoded "
    "once with dropout 0.1 and that one embedding is also its positive, so only the push between "
    "different sentences trains. The rate is fixed at 0.1, so the dropout slider is off while this is "
    "on. This is how the SimCSE authors said to reproduce the ablation, in their answer to GitHub issue 36."
)
SAME_MASK_LINK = "https://github.com/princeton-nlp/SimCSE/issues/36"
SAME_MASK_DROPOUT = 0.1  # the paper's "fixed 0.1"

LESSON = Lesson(
    title="SimCSE training",
    intro=(
        "Contrastive learning of sentence embeddings (Gao, Yao & Chen 2021): a sentence encoded twice with "
        "different dropout masks is its own positive; the other sentences of the batch are negatives. The "
        "paper's ablations are settings of a run (dropout rate, the same mask, an augmentation of the "
        "positive), and the preset “SimCSE Figure 2” runs four of them side by side. On raw BERT the paper "
        "reports STS-B dev {paper_sts.reported.dropout} with dropout 0.1, {paper_sts.reported.no_dropout} "
        "without dropout and {paper_mask.reported.fixed} with the same mask, and alignment that worsens "
        "when the two views are identical. This encoder differs: the bundled all-MiniLM-L6-v2 was already "
        "trained contrastively with mean pooling, so at its own pooling (the default) the dropout positive "
        "is easy to find from the first step. In the lab's runs ({unif_unsup.steps} steps of batch "
        "{unif_unsup.batch_size}) alignment worsens in every run, dropout included ({align_unsup.start} → "
        "{align_unsup.end} with dropout); the paper's finding that uniformity improves in every run "
        "{unif_unsup.here} (with dropout {unif_unsup.start} → {unif_unsup.end}; a change within twice the "
        "seeds' spread does not count), and STS hardly moves: {paper_sts.start} at the start, "
        "{paper_sts.end} with dropout, {paper_sts.than_end} without, {paper_mask.than_end} with the same "
        "mask. Of the paper's order, dropout over no dropout {paper_sts.here} and no dropout over the same "
        "mask {paper_mask.here}, at this length and pooling. The paper's [CLS] pooler is a setting of the "
        "page (docs/results.md has runs of it)."
    ),
    watch=(
        "uniformity: the paper saw it fall (improve) in every run, the negatives pushing the sentences "
        "apart over the sphere; without dropout that {unif_nodrop.here} ({unif_nodrop.start} → "
        "{unif_nodrop.end}), with the same mask it {unif_fixed.here} (→ {unif_fixed.end});",
        "alignment rises (worsens) a little in every run on this encoder, dropout included "
        "({align_unsup.start} → {align_unsup.end} with dropout); the paper saw it worsen only without "
        "dropout noise (no dropout, same mask);",
        "the STS Spearman score stays near its start at the encoder's own pooling ({paper_sts.start} → "
        "{paper_sts.end} with dropout); of the paper's order (dropout, then no dropout, then the same "
        "mask), the first step {paper_sts.here} and the second {paper_mask.here}.",
    ),
    measures={
        "isoscore": "measured on the evaluation sentences. With fewer sentences than dimensions it is "
        "capped at (n − 2)/(d − 1).",
        "isoscore_star": "read it when few STS pairs are evaluated (fewer sentences than dimensions).",
        "silhouette": "(probe silhouette, on the demo topics) unsupervised SimCSE never sees the labels, so "
        "it need not rise.",
        "alignment": "the paper keeps it low with dropout noise; on this already contrastively trained "
        "encoder it rises a little in every run ({align_unsup.start} → {align_unsup.end} with dropout). "
        "Read it with uniformity in the alignment–uniformity plane, where lower-left is better. The chart "
        "names the pairs it was measured on.",
        "uniformity": "the paper saw it fall (improve) in every run: the negatives push the sentences apart "
        "over the sphere; here, with dropout, {unif_unsup.start} → {unif_unsup.end} (the paper's trend "
        "{unif_unsup.here}).",
        "sts_spearman": "the paper's dropout runs climb and the same mask stalls; at this encoder's own "
        "pooling every run stays near its start ({paper_sts.start}). The chart's title names the pairs it "
        "was measured on: STS-B dev from the data folder, or the built-in demo pairs when there is none.",
        "loss": "the contrastive loss over the batch; at this encoder's own pooling the positive is easy "
        "to find from the first step, so read the geometry rather than the loss.",
        RANKME: "rises as contrastive training spreads the embeddings ({rank.start} → "
        "{rank.end} with dropout).",
        "average_cosine": "the mean cosine between the evaluation sentences, their anisotropy (as Ethayarajh "
        "defined it), which the SimCSE paper argues the contrastive objective reduces.",
        PARTITION_ISOTROPY: "rises when training removes a dominant common direction.",
        "spectrum": "the SimCSE paper reads a flatter spectrum as the contrastive objective at work.",
    },
    claims=CLAIMS,
)
