"""Execute an experiment (a generator of :mod:`engine.events`) into a run folder. Shared by the CLI and the jobs.

An experiment is registered once in :data:`EXPERIMENTS` and is then available to the CLI, the job registry
and the UI. Its generator yields :class:`~engine.events.Progress`, :class:`~engine.events.Points` and
:class:`~engine.events.Row` events; the runner writes every row (and its snapshot) and the points to the run
folder before it passes the event on, so a reader of the folder never sees an event before its data.
The generator checks ``stop`` (a :class:`threading.Event`) between steps and returns early when it is set.
"""

from __future__ import annotations

import importlib
import logging
import math
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ConfigError, EmbedlabError, one_line
from engine.events import Event, Points, Row
from engine.runlog import RunWriter

log = logging.getLogger(__name__)

EventCallback = Callable[[Event], None]


@dataclass(frozen=True)
class Experiment:
    """How to run one kind of experiment: ``module:function`` names keep imports lazy."""

    kind: str
    title: str
    config_class: str  # "engine.probe:ProbeConfig"
    generator: str  # "engine.probe:run_probe"  (config, stop) -> Iterator[Event]
    columns: tuple[str, ...]
    summarize: str | None = None  # "engine.probe:summarize" (rows, config) -> dict
    cli: str | None = None  # module with add_arguments(parser), config_from_args(args) [, run_cli(args, config)]
    #: its loop parallelises by whole tasks, not by op threads (``engine.metrics._parallel.tasks_not_ops``), so
    #: in the app it may use every core: it slows in proportion when the browser takes one, never stalls
    task_parallel: bool = False

    def load(self, ref: str) -> Any:
        module, _, name = ref.partition(":")
        return getattr(importlib.import_module(module), name)

    def make_config(self, **values: Any) -> Any:
        """The config dataclass from its fields; unknown or missing fields raise a one-line ConfigError."""
        try:
            return self.load(self.config_class)(**values)
        except TypeError as err:
            raise ConfigError(f"{self.kind} settings: {one_line(err)}") from err


EXPERIMENTS: dict[str, Experiment] = {
    "probe": Experiment(
        kind="probe",
        title="Isotropy vs clusters (linear-classifier embedding optimisation)",
        config_class="engine.probe:ProbeConfig",
        generator="engine.probe:run_probe",
        columns=("step", "loss", "accuracy", "isoscore", "silhouette", "seconds"),
        summarize="engine.probe:summarize",
        cli="engine.probe",
        task_parallel=True,
    ),
    "simcse": Experiment(
        kind="simcse",
        title="SimCSE training",
        config_class="engine.simcse.train:SimCSEConfig",
        generator="engine.simcse.train:train_simcse",
        columns=(
            "step", "loss", "alignment", "uniformity", "sts_spearman", "isoscore",
            "probe_silhouette", "probe_isoscore", "seconds", "eval_seconds",
        ),
        summarize="engine.simcse.train:summarize",
        cli="engine.simcse.cli",
    ),
}


def config_to_dict(config: Any) -> dict[str, Any]:
    return asdict(config) if is_dataclass(config) else dict(config)


def final_values(rows: list[Mapping[str, Any]], columns: tuple[str, ...]) -> dict[str, Any]:
    """Last finite value of every column (``None`` when never logged)."""
    out: dict[str, Any] = {}
    for column in columns:
        value = None
        for row in reversed(rows):
            cell = row.get(column)
            if cell is not None and not (isinstance(cell, float) and math.isnan(cell)):
                value = cell
                break
        out[column] = value
    return out


def run_experiment(
    kind: str,
    config: Any,
    run_dir: Path,
    stop: threading.Event | None = None,
    on_event: EventCallback | None = None,
) -> dict[str, Any]:
    """Run ``kind`` with ``config`` into ``run_dir``; return the summary.

    Every metrics row is on disk before the next step starts. User errors (``EmbedlabError``) and any
    other failure (out of memory, CUDA errors) end the run as ``failed`` with a one-line message in
    ``status.json`` and are re-raised; a set ``stop`` ends it as ``stopped``.
    """
    experiment = EXPERIMENTS[kind]
    stop = stop or threading.Event()
    settings = {"kind": kind, **config_to_dict(config)}
    columns = tuple(config.metric_columns()) if hasattr(config, "metric_columns") else experiment.columns
    writer = RunWriter(run_dir, columns, settings)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        generator: Iterator[Event] = experiment.load(experiment.generator)(config, stop)
        for event in generator:
            if isinstance(event, Points):
                writer.save_points(event.texts, event.labels)
            elif isinstance(event, Row):
                if event.snapshot is not None:  # the snapshot first: a row on disk promises its snapshot
                    writer.save_snapshot(int(event.step), np.asarray(event.snapshot))
                row = event.record(columns)
                writer.append(row)
                rows.append(row)
            if on_event is not None:
                on_event(event)
    except BaseException as err:  # noqa: BLE001 - every failure must end as a recorded state
        message = one_line(err)
        if not isinstance(err, (EmbedlabError, KeyboardInterrupt)):
            log.error("run %s failed:\n%s", run_dir, traceback.format_exc())
        state = "stopped" if isinstance(err, KeyboardInterrupt) else "failed"
        summary = _summary(experiment, columns, rows, config, started, state)
        writer.finish(state, summary=summary, error=None if state == "stopped" else message)
        raise
    state = "stopped" if stop.is_set() else "finished"
    summary = _summary(experiment, columns, rows, config, started, state)
    writer.finish(state, summary=summary)
    return summary


def _summary(
    experiment: Experiment, columns: tuple[str, ...], rows: list[dict[str, Any]], config: Any, started: float, state: str
) -> dict:
    summary: dict[str, Any] = {"state": state, "steps_logged": len(rows), "wall_seconds": time.perf_counter() - started}
    summary["final"] = final_values(rows, columns)
    if experiment.summarize and rows:
        try:
            summary.update(experiment.load(experiment.summarize)(rows, config))
        except Exception as err:  # noqa: BLE001 - a summary must never lose the run
            summary["summary_error"] = one_line(err)
    return summary
