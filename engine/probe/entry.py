"""The probe's entry in the experiment registry (:mod:`engine.core.experiments`): plain data and lazy
references only, so that reading it imports neither torch nor the probe's loop."""

from __future__ import annotations

from engine.core.declaration import Section, declare
from engine.core.measures import GEOMETRY, RANKME, SPECTRUM
from engine.probe.lesson import LESSON

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

EXPERIMENT = declare(
    "probe",
    "engine.probe",
    title="Isotropy vs clusters (linear-classifier embedding optimisation)",
    config_class="engine.probe:ProbeConfig",
    generator="engine.probe:run_probe",
    columns=(*COLUMNS, "alignment", "seconds"),
    summarize="engine.probe:summarize",
    cli="engine.probe",
    task_parallel=True,
    charted_as=CHARTED_AS,
    lesson=LESSON,
    section=SECTION,
    warm_up="engine.probe.warm:warm_demo",
    smoke={"data": "demo", "steps": 4, "snapshot_every": 0, "device": "cpu"},
)
