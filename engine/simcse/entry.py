"""SimCSE's entry in the experiment registry (:mod:`engine.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the training loop."""

from __future__ import annotations

from engine.experiment import Experiment, Lesson, Section
from engine.measures import SPECTRUM

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
)

SECTION = Section(
    page="views/simcse.py",
    # at each evaluation; the isotropy family on the evaluation sentences, and with a probe set on it too
    metrics=(
        "loss",
        "sts_spearman",
        "alignment",
        "uniformity",
        "isoscore",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "probe_silhouette",
        "probe_isoscore",
        "probe_effective_rank",
        "probe_average_cosine",
        "probe_partition_isotropy",
    ),
    drawn=(
        "loss",
        "sts_spearman",
        "alignment",
        "uniformity",
        "isoscore",
        "probe_silhouette",
        "probe_isoscore",
        SPECTRUM,
    ),
    pair=("uniformity", "sts_spearman"),
    empty="No SimCSE runs yet. Press ▶ Start in the sidebar, or the preset “SimCSE Figure 2”.",
)

EXPERIMENT = Experiment(
    kind="simcse",
    title="SimCSE training",
    config_class="engine.simcse.train:SimCSEConfig",
    generator="engine.simcse.train:train_simcse",
    # the fallback of a config without metric_columns() (engine.simcse.config); the spectrum goes to
    # spectrum.csv
    columns=(
        "step",
        "loss",
        "alignment",
        "uniformity",
        "sts_spearman",
        "isoscore",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "probe_silhouette",
        "probe_isoscore",
        "probe_effective_rank",
        "probe_average_cosine",
        "probe_partition_isotropy",
        "seconds",
        "eval_seconds",
    ),
    summarize="engine.simcse.train:summarize",
    cli="engine.simcse.cli",
    vectors=(SPECTRUM,),
    lesson=LESSON,
    section=SECTION,
    presets="engine.simcse.presets:presets",
    measured_on="engine.simcse.facts:measured_on",
    describe="engine.simcse.facts:describe",
)
