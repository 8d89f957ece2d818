"""The experiment registry: every experiment of the lab, registered in one place.

Each entry names the :class:`~engine.core.declaration.Experiment` an experiment package declares (its config
class, run generator, columns, summary, presets, lesson and page section). The CLI, the job server, the pages,
Compare, the replay and the downloads enumerate :data:`EXPERIMENTS`; none of them names an experiment.

Adding an experiment: a package ``engine/<kind>/`` whose ``entry`` module declares ``EXPERIMENT``, and one
line in :data:`ENTRIES`. Reading the registry imports the entries only (plain data and ``module:function``
references), never torch.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from engine.core.declaration import Experiment, Lesson, Preset

#: kind -> "module:attribute" of its Experiment, in the order the CLI and the pages list them
ENTRIES: dict[str, str] = {
    "probe": "engine.probe.entry:EXPERIMENT",
    "simcse": "engine.simcse.entry:EXPERIMENT",
    "jepa": "engine.jepa.entry:EXPERIMENT",
}


def _load(kind: str, ref: str) -> Experiment:
    module, _, name = ref.partition(":")
    experiment = getattr(importlib.import_module(module), name)
    if not isinstance(experiment, Experiment) or experiment.kind != kind:
        raise TypeError(f"{ref} is not the Experiment of {kind!r}")
    return experiment


EXPERIMENTS: dict[str, Experiment] = {kind: _load(kind, ref) for kind, ref in ENTRIES.items()}


def get(kind: str) -> Experiment | None:
    """The experiment ``kind`` (None when unknown, e.g. a run folder of another version)."""
    return EXPERIMENTS.get(kind)


def title(kind: str) -> str:
    """The lesson title of ``kind`` (its kind when unknown or without a lesson)."""
    experiment = EXPERIMENTS.get(kind)
    return experiment.lesson.title if experiment is not None and experiment.lesson else kind


def lessons() -> dict[str, Lesson]:
    """Each experiment's lesson, by kind."""
    return {kind: e.lesson for kind, e in EXPERIMENTS.items() if e.lesson is not None}


def logging(measure: str) -> list[str]:
    """The experiments (kinds) that log ``measure`` (:meth:`Experiment.measures`)."""
    return [kind for kind, experiment in EXPERIMENTS.items() if measure in experiment.measures()]


def charted(kind: str, column: str) -> str:
    """The name the charts give column ``column`` of a ``kind`` run (unchanged for an unknown kind)."""
    experiment = EXPERIMENTS.get(kind)
    return column if experiment is None else experiment.charted(column)


def all_metrics() -> list[str]:
    """Every scalar measure the experiments' sections offer, each experiment's in its order (Compare)."""
    found: list[str] = []
    for experiment in EXPERIMENTS.values():
        offered = experiment.section.metrics if experiment.section else experiment.measures()
        found += [m for m in offered if m not in found]
    return found


def all_presets(settings: Mapping[str, Any] | None = None) -> list[Preset]:
    """Every experiment's presets (built on call: their descriptions may read ``settings``)."""
    found: list[Preset] = []
    for experiment in EXPERIMENTS.values():
        if experiment.presets:
            found += experiment.load(experiment.presets)(dict(settings) if settings is not None else None)
    return found


def measured_on(
    kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """The data ``metric`` of a ``kind`` run was measured on, in words (None: not measured on a data set)."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None or not experiment.measured_on:
        return None if metric is not None else kind
    return experiment.load(experiment.measured_on)(config, summary, metric)


def describe(kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list:
    """The data a ``kind`` run used, as (label, text) rows (the replay's settings block)."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None or not experiment.describe:
        return []
    return list(experiment.load(experiment.describe)(config, summary))
