"""The probe's entry in the experiment registry (:mod:`engine.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the probe's loop."""

from __future__ import annotations

from engine.experiment import Experiment, Section
from engine.measures import SPECTRUM
from engine.probe.lesson import LESSON

SECTION = Section(
    page="views/isotropy.py",
    # engine.probe.measure.COLUMNS as charted; effective rank, I(W), uniformity and the spectrum every few
    # logged steps
    metrics=(
        "loss",
        "accuracy",
        "micro_f1",
        "isoscore",
        "silhouette",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "uniformity",
        "class_alignment",
    ),
    drawn=("loss", "accuracy", "isoscore", "silhouette", "effective_rank", SPECTRUM),
    pair=("isoscore", "silhouette"),
    figures=("align_uniform",),
    title="Isotropy vs clusters",
    icon=":material/scatter_plot:",
    empty="No probe runs yet. Press ▶ Start in the sidebar, or a preset.",
)

EXPERIMENT = Experiment(
    kind="probe",
    title="Isotropy vs clusters (linear-classifier embedding optimisation)",
    config_class="engine.probe:ProbeConfig",
    generator="engine.probe:run_probe",
    # the measures: engine.probe.measure.COLUMNS; the spectrum goes to spectrum.csv (Row.spectrum)
    columns=(
        "step",
        "loss",
        "accuracy",
        "micro_f1",
        "isoscore",
        "silhouette",
        "effective_rank",
        "average_cosine",
        "partition_isotropy",
        "uniformity",
        "alignment",
        "seconds",
    ),
    summarize="engine.probe:summarize",
    cli="engine.probe",
    task_parallel=True,
    charted_as={"alignment": "class_alignment"},
    vectors=(SPECTRUM,),
    lesson=LESSON,
    section=SECTION,
    presets="engine.probe.presets:presets",
    measured_on="engine.probe.facts:measured_on",
    describe="engine.probe.facts:describe",
    warm_up="engine.probe.warm:warm_demo",
    smoke={"data": "demo", "steps": 4, "snapshot_every": 0, "device": "cpu"},
)
