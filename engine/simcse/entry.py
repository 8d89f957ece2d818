"""SimCSE's entry in the experiment registry (:mod:`engine.core.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the training loop."""

from __future__ import annotations

from engine.core.declaration import Section
from engine.core.measures import GEOMETRY, LABELLED_SET_COLUMNS, SPECTRUM
from engine.simcse.lesson import LESSON
from engine.training.experiment import FIRST_MEASURES, training_experiment

SECTION = Section(
    page="views/simcse.py",
    # at each evaluation; the isotropy family on the evaluation sentences, and with a labelled set on it too
    metrics=(*FIRST_MEASURES, *GEOMETRY, *LABELLED_SET_COLUMNS),
    drawn=(*FIRST_MEASURES, "probe_silhouette", "probe_isoscore", SPECTRUM),
    pair=("uniformity", "sts_spearman"),
    figures=("align_uniform",),
    empty="No SimCSE runs yet. Press ▶ Start in the sidebar, or the preset “SimCSE Figure 2”.",
    icon=":material/model_training:",
)

EXPERIMENT = training_experiment(
    "simcse",
    "SimCSE training",
    config_class="engine.simcse.config:SimCSEConfig",
    lesson=LESSON,
    section=SECTION,
)
