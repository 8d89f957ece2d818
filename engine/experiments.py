"""The experiment registry: every experiment of the lab, registered in one place.

It sits above the experiments it lists (engine's floors: docs/architecture.md) and below the CLI and the job
server: each entry is an :class:`~engine.core.declaration.Experiment` object an experiment's ``entry``
module declares (:func:`~engine.core.declaration.declare`: its config class, run generator, presets,
lesson, command line and page section, all objects). The CLI, the job server, the pages, Compare, the
replay and the downloads enumerate :data:`EXPERIMENTS`; none of them names an experiment. Importing it
reads the entries only (their loops are imported on a run), never torch.

Adding an experiment: a package ``engine/<kind>/`` whose ``entry`` module declares ``EXPERIMENT``, and its
entry in :data:`LAB` below (a test's experiment: :func:`register` or :func:`registered`, the same call).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from engine.core import measures
from engine.core.declaration import Experiment, Lesson, Preset
from engine.core.errors import ConfigError
from engine.jepa.entry import EXPERIMENT as JEPA
from engine.probe.entry import EXPERIMENT as PROBE
from engine.simcse.entry import EXPERIMENT as SIMCSE

#: the lab's experiments, in the order the CLI and the pages list them
LAB: tuple[Experiment, ...] = (PROBE, SIMCSE, JEPA)
#: kind -> its Experiment: the lab's, then any registered later
EXPERIMENTS: dict[str, Experiment] = {}


def register(experiment: Experiment) -> Experiment:
    """List ``experiment`` (after those registered before it) and add the measures it declares itself to the
    measure registry; a second experiment of the same kind is one ConfigError line."""
    known = EXPERIMENTS.get(experiment.kind)
    if known is not None and known is not experiment:
        raise ConfigError(f"an experiment of kind {experiment.kind!r} is registered already")
    for measure in experiment.own_measures:
        measures.add(measure)
    EXPERIMENTS[experiment.kind] = experiment
    return experiment


def unregister(kind: str) -> None:
    """Take the experiment ``kind`` (and the measures it declared itself) off the registry."""
    experiment = EXPERIMENTS.pop(kind, None)
    for measure in experiment.own_measures if experiment is not None else ():
        measures.remove(measure.name)


@contextmanager
def registered(experiment: Experiment) -> Iterator[Experiment]:
    """``experiment`` registered for the length of a ``with`` block (a test's toy experiment)."""
    register(experiment)
    try:
        yield experiment
    finally:
        unregister(experiment.kind)


for _experiment in LAB:
    register(_experiment)


def get(kind: str) -> Experiment | None:
    """The experiment ``kind`` (None when unknown, e.g. a run folder of another version)."""
    return EXPERIMENTS.get(kind)


def require(kind: str) -> Experiment:
    """The experiment ``kind``; one ConfigError line naming the known kinds when there is none."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None:
        raise ConfigError(f"unknown experiment {kind!r} (known: {', '.join(EXPERIMENTS)})")
    return experiment


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
            found += experiment.presets(dict(settings) if settings is not None else None)
    return found


def measured_on(
    kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """The data ``metric`` of a ``kind`` run was measured on, in words (None: not measured on a data set)."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None or not experiment.measured_on:
        return None if metric is not None else kind
    return experiment.measured_on(config, summary, metric)


def describe(kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list:
    """The data a ``kind`` run used, as (label, text) rows (the replay's settings block)."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None or not experiment.describe:
        return []
    return list(experiment.describe(config, summary))
