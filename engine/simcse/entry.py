"""SimCSE's entry in the experiment registry (:mod:`engine.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the training loop."""

from __future__ import annotations

from engine.experiment import ENCODER_SMOKE, Experiment, Section
from engine.measures import SPECTRUM
from engine.simcse.lesson import LESSON

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
    figures=("align_uniform",),
    title="SimCSE training",
    icon=":material/model_training:",
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
    smoke=ENCODER_SMOKE,
)
