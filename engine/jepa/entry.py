"""JEPA's entry in the experiment registry (:mod:`engine.experiments`): plain data and lazy references only,
so that reading it imports neither torch nor the training loop. The lesson is :mod:`engine.jepa.lesson`."""

from __future__ import annotations

from engine.experiment import ENCODER_SMOKE, Experiment, Section
from engine.jepa.lesson import LESSON
from engine.measures import SPECTRUM

_COLLAPSE = ("effective_rank", "alpha_req", "dim_std_mean", "dim_std_min")
_PROBE = (
    "probe_silhouette",
    "probe_isoscore",
    "probe_effective_rank",
    "probe_average_cosine",
    "probe_partition_isotropy",
)

SECTION = Section(
    page="views/jepa.py",
    metrics=(
        "loss",
        "sts_spearman",
        "alignment",
        "uniformity",
        "isoscore",
        *_COLLAPSE,
        "average_cosine",
        "partition_isotropy",
        *_PROBE,
    ),
    drawn=("loss", "effective_rank", "dim_std_mean", "alpha_req", "isoscore", "sts_spearman", SPECTRUM),
    pair=("uniformity", "alignment"),
    figures=("align_uniform",),
    title="JEPA (non-contrastive)",
    icon=":material/join_inner:",
    beside=("simcse",),  # the contrastive reference of "Does JEPA collapse?", drawn beside its JEPA runs
    empty="No JEPA runs yet. Press ▶ Start in the sidebar, or the preset “Does JEPA collapse?”.",
)

EXPERIMENT = Experiment(
    kind="jepa",
    title="JEPA (non-contrastive)",
    config_class="engine.jepa.config:JEPAConfig",
    generator="engine.jepa.train:train_jepa",
    # the fallback of a config without metric_columns() (engine.jepa.config); the spectrum goes to
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
        "alpha_req",
        "dim_std_mean",
        "dim_std_min",
        *_PROBE,
        "seconds",
        "eval_seconds",
    ),
    summarize="engine.jepa.train:summarize",
    cli="engine.jepa.cli",
    vectors=(SPECTRUM,),
    lesson=LESSON,
    section=SECTION,
    presets="engine.jepa.presets:presets",
    measured_on="engine.jepa.facts:measured_on",
    describe="engine.jepa.facts:describe",
    smoke=ENCODER_SMOKE,
)
