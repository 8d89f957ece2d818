"""One-click presets of the UI: named lists of runs (kind, run name, config fields) to queue at once.

Each experiment declares its own (:attr:`engine.experiment.Experiment.presets`: e.g.
:mod:`engine.probe.presets`, :mod:`engine.simcse.presets`); this module lists them all. A preset only fills
config fields; the user's current settings (encoder, device, seed, data folder) are the base it is laid over,
so its description can depend on them (:func:`presets` takes them). A preset may hold runs of several
experiments (JEPA's collapse question with its SimCSE reference): :func:`queue` gives each run its kind and
the config fields that kind has.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

from engine import experiments, paths
from engine.experiment import Preset

__all__ = [
    "Preset",
    "QueuedRun",
    "default_data_dir",
    "demo",
    "for_kind",
    "presets",
    "queue",
    "sts_evaluation",
]


class QueuedRun(NamedTuple):
    """One run of a preset, ready to queue: its experiment, its name and its config fields."""

    kind: str
    name: str
    fields: dict[str, Any]


def queue(preset: Preset, settings: dict[str, Any] | None = None, *, short: bool = False) -> list[QueuedRun]:
    """Every run of ``preset`` in its order, with its kind and config fields (:meth:`Preset.fields`). A run
    of the preset's own kind keeps every field (an unknown one is an error at Start, as ever); a run of
    another kind keeps only the fields its config has (the page's settings are the preset kind's)."""
    found = []
    for name in preset.runs:
        kind = preset.kind_of(name)
        fields = preset.fields(name, settings, short=short)
        if kind != preset.kind:
            known = _field_names(kind)
            fields = {key: value for key, value in fields.items() if key in known}
        found.append(QueuedRun(kind, name, fields))
    return found


def _field_names(kind: str) -> set[str]:
    experiment = experiments.EXPERIMENTS[kind]
    return {field.name for field in dataclasses.fields(experiment.load(experiment.config_class))}


def presets(settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    """Every experiment's presets by name (built on call, so each experiment's code is imported lazily);
    ``settings`` (the user's current ones, e.g. the data folder) complete the descriptions."""
    return {preset.name: preset for preset in experiments.all_presets(settings)}


def for_kind(kind: str, settings: dict[str, Any] | None = None) -> dict[str, Preset]:
    return {name: preset for name, preset in presets(settings).items() if preset.kind == kind}


def demo() -> Preset:
    """The Overview's one-click demo (the preset marked ``demo``)."""
    return next(preset for preset in presets().values() if preset.demo)


def default_data_dir() -> str | None:
    """The app's data folder (:func:`engine.paths.app_data_dir`) as text, or None."""
    folder = paths.app_data_dir()
    return None if folder is None else str(folder)


def sts_evaluation(settings: dict[str, Any] | None = None) -> str:
    """Where a SimCSE run with these settings evaluates, in words:
    :func:`engine.simcse.presets.sts_evaluation` (kept here for the SimCSE page's sidebar, which imports
    it from this module)."""
    from engine.simcse.presets import sts_evaluation as words

    return words(settings)
