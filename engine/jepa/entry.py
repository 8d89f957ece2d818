"""JEPA's entry in the experiment registry (:mod:`engine.core.experiments`): plain data and lazy references
only, so that reading it imports neither torch nor the training loop. The lesson is
:mod:`engine.jepa.lesson`."""

from __future__ import annotations

from engine.core.declaration import Section
from engine.core.measures import COLLAPSE, COLLAPSE_PROFILE, GEOMETRY, LABELLED_SET_COLUMNS, RANKME, SPECTRUM
from engine.jepa.lesson import LESSON
from engine.training.experiment import FIRST_MEASURES, training_experiment

#: the rest of the isotropy family beside the collapse lens (which has RankMe)
_FAMILY = tuple(name for name in GEOMETRY if name != RANKME)

SECTION = Section(
    page="views/jepa.py",
    metrics=(*FIRST_MEASURES, *COLLAPSE, *_FAMILY, *LABELLED_SET_COLUMNS),
    drawn=("loss", RANKME, "dim_std_mean", "alpha_req", "isoscore", "sts_spearman", SPECTRUM),
    pair=("uniformity", "alignment"),
    figures=("align_uniform",),
    beside=("simcse",),  # the contrastive reference of "Does JEPA collapse?", drawn beside its JEPA runs
    icon=":material/join_inner:",
    empty="No JEPA runs yet. Press ▶ Start in the sidebar, or the preset “Does JEPA collapse?”.",
)

EXPERIMENT = training_experiment(
    "jepa",
    "JEPA (non-contrastive)",
    config_class="engine.jepa.config:JEPAConfig",
    own=COLLAPSE_PROFILE,
    lesson=LESSON,
    section=SECTION,
)
