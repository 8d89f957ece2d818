"""JEPA's entry in the experiment registry (:mod:`engine.experiments`): its parts as objects; the training
loop imported on call, so that reading it imports no torch. The lesson is :mod:`engine.jepa.lesson`."""

from __future__ import annotations

from types import ModuleType

from engine.core.declaration import CodeOnRun, Section
from engine.core.flags import OwnCommandLine
from engine.core.measures import COLLAPSE, COLLAPSE_PROFILE, GEOMETRY, LABELLED_SET_COLUMNS, RANKME, SPECTRUM
from engine.jepa import cli, facts
from engine.jepa.config import JEPAConfig
from engine.jepa.lesson import LESSON
from engine.jepa.presets import presets
from engine.training.experiment import FIRST_MEASURES, training_experiment

#: the rest of the isotropy family beside the collapse lens (which has RankMe)
_FAMILY = tuple(name for name in GEOMETRY if name != RANKME)

SECTION = Section(
    page="views/jepa.py",
    metrics=(*FIRST_MEASURES, *COLLAPSE, *_FAMILY, *LABELLED_SET_COLUMNS),
    drawn=("loss", RANKME, "dim_std_mean", "alpha_req", "isoscore", "sts_spearman", SPECTRUM),
    pair=("uniformity", "alignment"),
    figures=("align_uniform",),
    projector=(RANKME,),  # the lesson's: does it collapse?
    beside=("simcse",),  # the contrastive reference of "Does JEPA collapse?", drawn beside its JEPA runs
    icon=":material/join_inner:",
    empty="No JEPA runs yet. Press ▶ Start in the sidebar, or the preset “Does JEPA collapse?”.",
)


def load_code() -> ModuleType:
    """JEPA's training loop (:mod:`engine.jepa.train`: torch and the training core), imported on a run."""
    import engine.jepa.train

    return engine.jepa.train


EXPERIMENT = training_experiment(
    "jepa",
    "JEPA (non-contrastive)",
    config_class=JEPAConfig,
    code=CodeOnRun(load_code, "train_jepa"),
    cli=OwnCommandLine(cli.add_arguments, cli.config_from_args, cli.run_cli),
    presets=presets,
    measured_on=facts.measured_on,
    describe=facts.describe,
    own=COLLAPSE_PROFILE,
    lesson=LESSON,
    section=SECTION,
)
