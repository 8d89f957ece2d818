"""SimCSE's entry in the experiment registry (:mod:`engine.experiments`): its parts as objects; the training
loop and the presets (which read the encoders) imported on call, so that reading it imports no torch."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from engine.core.declaration import CodeOnRun, Preset, Section
from engine.core.flags import OwnCommandLine
from engine.core.measures import GEOMETRY, LABELLED_SET_COLUMNS, SPECTRUM, STS_SPEARMAN
from engine.simcse import cli, facts
from engine.simcse.config import SimCSEConfig
from engine.simcse.lesson import LESSON
from engine.training.experiment import FIRST_MEASURES, training_experiment

SECTION = Section(
    page="views/simcse.py",
    # at each evaluation; the isotropy family on the evaluation sentences, and with a labelled set on it too
    metrics=(*FIRST_MEASURES, *GEOMETRY, *LABELLED_SET_COLUMNS),
    drawn=(*FIRST_MEASURES, "probe_silhouette", "probe_isoscore", SPECTRUM),
    pair=("uniformity", "sts_spearman"),
    figures=("align_uniform",),
    projector=("align_uniform_path", STS_SPEARMAN),  # the lesson's: Figure 2's plane with paths, and STS
    empty="No SimCSE runs yet. Press ▶ Start in the sidebar, or the preset “SimCSE Figure 2”.",
    icon=":material/model_training:",
)


def load_code() -> ModuleType:
    """SimCSE's training loop (:mod:`engine.simcse.train`: torch and the training core), imported on a run."""
    import engine.simcse.train

    return engine.simcse.train


def presets(settings: dict[str, Any] | None = None) -> list[Preset]:
    """SimCSE's presets (:func:`engine.simcse.presets.presets`)."""
    from engine.simcse.presets import presets as made

    return made(settings)


EXPERIMENT = training_experiment(
    "simcse",
    "SimCSE training",
    config_class=SimCSEConfig,
    code=CodeOnRun(load_code, "train_simcse"),
    cli=OwnCommandLine(cli.add_arguments, cli.config_from_args, cli.run_cli),
    presets=presets,
    measured_on=facts.measured_on,
    describe=facts.describe,
    lesson=LESSON,
    section=SECTION,
)
