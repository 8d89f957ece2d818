"""The probe's entry in the experiment registry (:mod:`engine.experiments`): its parts as objects; the loop
imported on call, so that reading it imports no torch. Its command line is one flag per knob."""

from __future__ import annotations

from types import ModuleType

from engine.core.declaration import CodeOnRun, Section, declare
from engine.core.measures import GEOMETRY, RANKME, SPECTRUM
from engine.probe import facts
from engine.probe.config import ProbeConfig
from engine.probe.lesson import LESSON
from engine.probe.presets import presets
from engine.probe.warm import warm_demo

#: the ``metrics.csv`` header: the measures of engine.probe.measure.COLUMNS; the spectrum goes to
#: spectrum.csv (Row.spectrum)
COLUMNS = ("step", "loss", "accuracy", "micro_f1", "isoscore", "silhouette", *GEOMETRY, "uniformity")
CHARTED_AS = {"alignment": "class_alignment"}

SECTION = Section(
    page="views/isotropy.py",
    # the measures as charted; RankMe, I(W), uniformity and the spectrum every few logged steps
    metrics=(*COLUMNS[1:], CHARTED_AS["alignment"]),
    drawn=("loss", "accuracy", "isoscore", "silhouette", RANKME, SPECTRUM),
    pair=("isoscore", "silhouette"),
    figures=("align_uniform",),
    title="Isotropy vs clusters",
    empty="No probe runs yet. Press ▶ Start in the sidebar, or a preset.",
    icon=":material/scatter_plot:",
)


def load_code() -> ModuleType:
    """The probe's package with its loop and summary imported (torch), on a run; its names are read from the
    package on each run (:data:`engine.probe.run_probe`, :func:`engine.probe.summarize`)."""
    import engine.probe.loop
    import engine.probe.summary

    return engine.probe


EXPERIMENT = declare(
    "probe",
    "Isotropy vs clusters (linear-classifier embedding optimisation)",
    config_class=ProbeConfig,
    columns=(*COLUMNS, "alignment", "seconds"),
    code=CodeOnRun(load_code, "run_probe"),
    task_parallel=True,
    charted_as=CHARTED_AS,
    presets=presets,
    measured_on=facts.measured_on,
    describe=facts.describe,
    lesson=LESSON,
    section=SECTION,
    warm_up=warm_demo,
    smoke={"data": "demo", "steps": 4, "snapshot_every": 0, "device": "cpu"},
)
