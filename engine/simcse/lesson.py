"""SimCSE's lesson (:class:`engine.experiment.Lesson`) with its claims as data, checked by ``python -m
engine lessons check`` (the Figure-2 preset), and the same-mask switch explained."""

from __future__ import annotations

from engine.experiment import Lesson
from engine.lesson_claims import Claim

FIGURE2 = "SimCSE Figure 2"  # engine.simcse.presets.FIGURE2
_RUNS = ("unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word")

CLAIMS = (
    Claim(
        FIGURE2,
        "unsup-simcse",
        "sts_spearman",
        "above",
        "Gao et al. (2021): dropout noise beats no dropout on STS-B dev (82.5 against 71.1).",
        than="no-dropout",
        source="paper",
    ),
    Claim(
        FIGURE2,
        "no-dropout",
        "sts_spearman",
        "above",
        "Gao et al. (2021): no dropout beats the same mask (fixed 0.1) on STS-B dev (71.1 against 43.6).",
        than="fixed-0.1",
        source="paper",
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
    ),
    *(
        Claim(FIGURE2, run, "uniformity", "falls", f"Uniformity improves (falls) in the {run} run.")
        for run in _RUNS
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
        "different dropout masks is its own positive; the other sentences of the batch are negatives. Flip "
        "an ablation in the sidebar and watch alignment, uniformity and the STS score move."
    ),
    watch=(
        "uniformity falls fast: the embeddings spread over the sphere;",
        "alignment stays low with dropout noise, and collapses to 0 without it (the positives are "
        "identical);",
        "the STS Spearman score climbs with dropout, and stalls without it or with the same mask.",
    ),
    measures={
        "isoscore": "measured on the evaluation sentences; it moves little while uniformity falls. With "
        "fewer sentences than dimensions it is capped at (n − 2)/(d − 1).",
        "isoscore_star": "read it when few STS pairs are evaluated (fewer sentences than dimensions).",
        "silhouette": "(probe silhouette, on the demo topics) unsupervised SimCSE never sees the labels, so "
        "it need not rise.",
        "alignment": "stays low with dropout noise; read it together with uniformity in the "
        "alignment–uniformity plane, where lower-left is better. The chart names the pairs it was measured "
        "on.",
        "uniformity": "falls fast in every run: the negatives push the sentences apart over the sphere.",
        "sts_spearman": "climbs with dropout noise and stalls without it or with the same mask. The chart's "
        "title names the pairs it was measured on: STS-B dev from the data folder, or the built-in demo "
        "pairs when there is none.",
        "loss": "falls, noisily (a new batch each step); with the same mask it falls fastest and means "
        "least.",
        "effective_rank": "rises a little as contrastive training spreads the embeddings.",
        "average_cosine": "falls as the negatives push the sentences apart (pre-trained encoders often start "
        "high).",
        "partition_isotropy": "rises when training removes a dominant common direction.",
        "spectrum": "flattens: the SimCSE paper reads this as the contrastive objective at work.",
    },
    claims=CLAIMS,
)
