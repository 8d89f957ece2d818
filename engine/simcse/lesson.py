"""SimCSE's lesson (:class:`engine.core.declaration.Lesson`) with its claims as data, checked by ``python -m
engine lessons check``: the lab's own on "SimCSE Figure 2" from the [CLS] start
(:mod:`engine.encoders.starts`), the paper's shown beside them there and on "SimCSE on a trained encoder";
and the same-mask switch explained."""

from __future__ import annotations

from engine.core.declaration import Lesson
from engine.core.lesson_claims import Claim
from engine.core.measures import PARTITION_ISOTROPY, RANKME
from engine.simcse.config import SAME_MASK_DROPOUT as SAME_MASK_DROPOUT

FIGURE2 = "SimCSE Figure 2"  # engine.simcse.presets.FIGURE2: from the [CLS] start
TRAINED = "SimCSE on a trained encoder"  # engine.simcse.presets.TRAINED: at the bundled encoder's own pooling
_RUNS = ("unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word")

_KEYS = {"unsup-simcse": "unsup", "no-dropout": "nodrop", "fixed-0.1": "fixed", "delete-one-word": "delete"}


def _paper_sts(preset: str, run: str, than: str, text: str, key: str, reported: dict[str, float]) -> Claim:
    """One of the paper's STS-B dev comparisons (Gao et al. 2021, Table 3) on ``preset``'s runs: ``run``
    ends above ``than``; ``reported``: the paper's figures."""
    return Claim(
        preset, run, "sts_spearman", "above", text, than=than, source="paper", key=key, reported=reported
    )


def _papers_order(preset: str, prefix: str) -> tuple[Claim, ...]:
    """The paper's findings on ``preset``'s runs, shown with what the lab measured (never failed): its STS
    order (Table 3: dropout 82.5, no dropout 71.1, fixed 0.1 43.6) and its Figure 2 (alignment worse
    without dropout noise)."""
    return (
        _paper_sts(
            preset,
            "unsup-simcse",
            "no-dropout",
            "Gao et al. (2021): dropout noise beats no dropout on STS-B dev.",
            f"{prefix}paper_sts",
            {"dropout": 82.5, "no_dropout": 71.1},
        ),
        _paper_sts(
            preset,
            "no-dropout",
            "fixed-0.1",
            "Gao et al. (2021): no dropout beats the same mask (fixed 0.1) on STS-B dev.",
            f"{prefix}paper_mask",
            {"no_dropout": 71.1, "fixed": 43.6},
        ),
        Claim(
            preset,
            "unsup-simcse",
            "alignment",
            "below",
            "Gao et al. (2021, Fig. 2): with identical views (no dropout) alignment ends worse than with "
            "dropout.",
            than="no-dropout",
            source="paper",
            key=f"{prefix}paper_align",
        ),
    )


#: "SimCSE Figure 2" from the [CLS] start: what the lab measures there (its own claims), then the paper's
FIGURE2_CLAIMS = (
    Claim(
        FIGURE2,
        "unsup-simcse",
        "sts_spearman",
        "rises",
        "From the [CLS] start, STS rises with dropout by more than 0.05: [CLS] becomes a sentence vector.",
        by=0.05,
        key="sts_rise",
    ),
    *(
        Claim(
            FIGURE2,
            run,
            "uniformity",
            "falls",
            f"Uniformity falls (improves) in the {run} run, as Gao et al. (2021, Fig. 2) saw in every run.",
            by=0.1,
            key=f"unif_{_KEYS[run]}",
        )
        for run in _RUNS
    ),
    *_papers_order(FIGURE2, ""),
    Claim(
        FIGURE2,
        "unsup-simcse",
        "alignment",
        "below",
        "Gao et al. (2021, Fig. 2): with the same mask alignment ends worse than with dropout.",
        than="fixed-0.1",
        source="paper",
        key="paper_align_mask",
    ),
)

#: "SimCSE on a trained encoder": the same runs at the bundled encoder's own pooling
TRAINED_CLAIMS = (
    *_papers_order(TRAINED, "t_"),
    *(
        Claim(
            TRAINED,
            run,
            "uniformity",
            "falls",
            f"Gao et al. (2021, Fig. 2): uniformity falls (improves) in every run; here the {run} run.",
            by=0.005,
            source="paper",
            key=f"t_unif_{_KEYS[run]}",
        )
        for run in _RUNS
    ),
    *(
        Claim(
            TRAINED,
            run,
            "alignment",
            "rises",
            f"Alignment rises (worsens) in the {run} run.",
            by=0.005,
            key=f"t_align_{_KEYS[run]}",
        )
        for run in _RUNS
    ),
    Claim(
        TRAINED,
        "unsup-simcse",
        RANKME,
        "rises",
        "RankMe rises as contrastive training spreads the embeddings.",
        key="t_rank",
    ),
)

CLAIMS = FIGURE2_CLAIMS + TRAINED_CLAIMS

#: the same-mask switch in plain words, with a readable reference (the views' own line cites an issue number)
SAME_MASK = (
    "Both views of a sentence share one dropout mask, the paper's “fixed 0.1”: the sentence is encoded "
    "once with dropout 0.1 and that one embedding is also its positive, so only the push between "
    "different sentences trains. The rate is fixed at 0.1, so the dropout slider is off while this is "
    "on. This is how the SimCSE authors said to reproduce the ablation, in their answer to GitHub issue 36."
)
SAME_MASK_LINK = "https://github.com/princeton-nlp/SimCSE/issues/36"

LESSON = Lesson(
    title="SimCSE training",
    intro=(
        "Contrastive learning of sentence embeddings (Gao, Yao & Chen 2021): a sentence encoded twice with "
        "different dropout masks is its own positive; the other sentences of the batch are negatives. The "
        "paper's ablations are settings of a run (dropout rate, the same mask, an augmentation of the "
        "positive). The paper starts from raw BERT, whose [CLS] vectors crowd into a narrow cone, and "
        "reports STS-B dev {paper_sts.reported.dropout} with dropout 0.1, "
        "{paper_sts.reported.no_dropout} without dropout and {paper_mask.reported.fixed} with the same mask. "
        "The preset “SimCSE Figure 2” runs the paper's four runs from the lab's stand-in for that start: "
        "the bundled all-MiniLM-L6-v2 read at its [CLS] token, which its mean-pooling training never made a "
        "sentence vector (the encoder “minilm-cls”). Where the Hugging Face cache or hub holds a raw MLM "
        "BERT the preset starts from it instead, and says which start it used and why; the lesson's claims "
        "were checked on minilm-cls only, none about a raw start until runs from one are recorded. In "
        "{sts_rise.steps} steps of batch {sts_rise.batch_size} STS rises from {sts_rise.start} to "
        "{sts_rise.end} with dropout and uniformity "
        "improves ({unif_unsup.start} → {unif_unsup.end}): the negatives spread the sentences and [CLS] "
        "becomes a sentence vector. Of the paper's order, dropout over no dropout {paper_sts.here} "
        "({paper_sts.end} against {paper_sts.than_end}) and no dropout over the same mask {paper_mask.here} "
        "({paper_mask.than_end} with the same mask; a gap within twice the seeds' spread does not count). "
        "The spreading does most of the work whatever the positive: even the same mask, whose positive is "
        "the sentence itself, rises from {paper_mask.than_start} to {paper_mask.than_end}, where the paper's "
        "gaps come after an epoch over a million sentences. The preset “SimCSE "
        "on a trained encoder” runs the same four at the encoder's own mean pooling, which "
        "sentence-transformers already trained contrastively: there the positive is easy from the first "
        "step, STS hardly moves ({t_paper_sts.start} → {t_paper_sts.end} with dropout) and alignment "
        "worsens in every run ({t_align_unsup.start} → {t_align_unsup.end} with dropout)."
    ),
    watch=(
        "STS Spearman from the [CLS] start: it climbs in the first steps of every run (with dropout "
        "{sts_rise.start} → {sts_rise.end}); of the paper's order, dropout above no dropout: "
        "{paper_sts.here}; no dropout above the same mask: {paper_mask.here};",
        "uniformity falls (improves) in every run, as in the paper's Figure 2: with dropout "
        "{unif_unsup.start} → {unif_unsup.end}, without {unif_nodrop.start} → {unif_nodrop.end}, with the "
        "same mask {unif_fixed.start} → {unif_fixed.end};",
        "alignment, in the alignment–uniformity plane (lower-left is better): the paper saw it worse "
        "without dropout noise. Dropout's alignment ends below no dropout's: {paper_align.here} "
        "({paper_align.end} against {paper_align.than_end}); below the same mask's: "
        "{paper_align_mask.here} ({paper_align_mask.than_end}).",
    ),
    measures={
        "isoscore": "measured on the evaluation sentences. With fewer sentences than dimensions it is "
        "capped at (n − 2)/(d − 1).",
        "isoscore_star": "read it when few STS pairs are evaluated (fewer sentences than dimensions).",
        "silhouette": "(on the labelled set, the demo topics) unsupervised SimCSE never sees the labels, so "
        "it need not rise.",
        "alignment": "the paper keeps it low with dropout noise and sees it worsen without; from the [CLS] "
        "start it ends at {paper_align.end} with dropout and {paper_align.than_end} without. Read it with "
        "uniformity in the alignment–uniformity plane, where lower-left is better. The chart names the "
        "pairs it was measured on.",
        "uniformity": "the paper saw it fall (improve) in every run: the negatives push the sentences apart "
        "over the sphere; from the [CLS] start, with dropout, {unif_unsup.start} → {unif_unsup.end}.",
        "sts_spearman": "from the [CLS] start it climbs as [CLS] becomes a sentence vector ({sts_rise.start} "
        "→ {sts_rise.end} with dropout); on the trained encoder's own pooling it stays near its start "
        "({t_paper_sts.start}). The chart's title names the pairs it was measured on: STS-B dev from the "
        "data folder, or the built-in demo pairs when there is none.",
        "loss": "the contrastive loss over the batch; the positive is soon easy to find, so read the "
        "geometry rather than the loss.",
        RANKME: "rises as contrastive training spreads the trained encoder's embeddings ({t_rank.start} → "
        "{t_rank.end} with dropout).",
        "average_cosine": "the mean cosine between the evaluation sentences, their anisotropy (as Ethayarajh "
        "defined it), which the SimCSE paper argues the contrastive objective reduces.",
        PARTITION_ISOTROPY: "rises when training removes a dominant common direction.",
        "spectrum": "the SimCSE paper reads a flatter spectrum as the contrastive objective at work.",
    },
    claims=CLAIMS,
)
