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
        Claim(FIGURE2, run, "uniformity", "falls", f"Uniformity falls (improves) in the {run} run.")
        for run in _RUNS
    ),
    *(
        Claim(FIGURE2, run, "alignment", "rises", f"Alignment rises (worsens) in the {run} run.")
        for run in _RUNS
    ),
    Claim(
        FIGURE2,
        "unsup-simcse",
        "sts_spearman",
        "steady",
        "At the encoder's own pooling STS stays within 3 % of its start.",
        by=0.03,
    ),
    *(
        Claim(
            FIGURE2,
            run,
            "loss",
            "under",
            f"At the encoder's own pooling the {run} run's loss is below 0.001 at its first and last step.",
            by=0.001,
        )
        for run in ("unsup-simcse", "no-dropout", "fixed-0.1")
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
        "reports STS-B dev 82.5 with dropout 0.1, 71.1 without dropout and 43.6 with the same mask, and "
        "alignment that worsens when the two views are identical. The bundled all-MiniLM-L6-v2 was already "
        "trained contrastively with mean pooling, so at its own pooling (the default) the dropout positive "
        "is trivial to find: the training loss is below 0.001 from the first step (0.18 with the paper's "
        "[CLS] pooler). In the lab's check (10 steps on the demo corpus) the four runs look alike: "
        "uniformity falls a little and alignment worsens a little in every run, dropout included, and STS "
        "moves by less than 0.002. On STS-B dev the encoder starts at 0.863. With the paper's pooler "
        "(--pooler cls) the runs start at 0.775 and climb to 0.81–0.84 in 100 steps, still below the "
        "untouched encoder with its own mean pooling."
    ),
    watch=(
        "uniformity falls in every run: the negatives push the sentences apart over the sphere;",
        "alignment rises (worsens) a little in every run on this encoder, dropout included; the paper saw "
        "it worsen only without dropout noise (no dropout, same mask);",
        "the STS Spearman score stays near its start at the encoder's own pooling; the paper's order "
        "(dropout 0.1 > no dropout > same mask) shows, if at all, in the third decimal.",
    ),
    measures={
        "isoscore": "measured on the evaluation sentences; it rises a little while uniformity falls. With "
        "fewer sentences than dimensions it is capped at (n − 2)/(d − 1).",
        "isoscore_star": "read it when few STS pairs are evaluated (fewer sentences than dimensions).",
        "silhouette": "(probe silhouette, on the demo topics) unsupervised SimCSE never sees the labels, so "
        "it need not rise.",
        "alignment": "the paper keeps it low with dropout noise; on this already contrastively trained "
        "encoder it rises a little in every run. Read it with uniformity in the alignment–uniformity plane, "
        "where lower-left is better. The chart names the pairs it was measured on.",
        "uniformity": "falls in every run: the negatives push the sentences apart over the sphere.",
        "sts_spearman": "the paper's dropout runs climb and the same mask stalls; at this encoder's own "
        "pooling every run stays near its start (STS-B dev 0.863). The chart's title names the pairs it was "
        "measured on: STS-B dev from the data folder, or the built-in demo pairs when there is none.",
        "loss": "at this encoder's own pooling it is below 0.001 from the first steps: the positive is "
        "trivial to find, and only the push between negatives still trains.",
        "effective_rank": "rises a little as contrastive training spreads the embeddings.",
        "average_cosine": "falls a little as the negatives push the sentences apart (0.04 at the start with "
        "mean pooling, 0.55 with the [CLS] pooler).",
        "partition_isotropy": "rises when training removes a dominant common direction.",
        "spectrum": "flattens a little: the SimCSE paper reads this as the contrastive objective at work.",
    },
    claims=CLAIMS,
)
