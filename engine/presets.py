"""One-click presets of the UI: named lists of runs (kind, run name, config fields) to queue at once.

Each experiment declares its own (:attr:`engine.experiment.Experiment.presets`: e.g.
:mod:`engine.probe.presets`, :mod:`engine.simcse.presets`); this module lists them all. A preset only fills
config fields; the user's current settings (encoder, device, seed, data folder) are the base it is laid over,
so its description can depend on them (:func:`presets` takes them).
"""

from __future__ import annotations

from typing import Any

from engine import experiments, paths
from engine.experiment import Preset

__all__ = ["Preset", "default_data_dir", "for_kind", "presets", "sts_evaluation", "demo"]


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
