"""Execute an experiment (a generator of :mod:`engine.runlog.events`) into a run folder. Shared by the CLI and
the jobs.

An experiment is registered once in :data:`engine.experiments.EXPERIMENTS` (above this part, which is handed
the :class:`~engine.core.declaration.Experiment` itself, or a kind declared in this process) and is then
available to the CLI, the job registry and the UI. Its generator yields
:class:`~engine.runlog.events.Progress`,
:class:`~engine.runlog.events.Points` and :class:`~engine.runlog.events.Row` events; the runner writes every
row (and its snapshot and spectrum) and the points to the run folder before it passes the event on, so a
reader of the folder never sees an event before its data.
The generator checks ``stop`` (a :class:`threading.Event`) between steps and returns early when it is set.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engine import runlog
from engine.core.config_dict import config_dict
from engine.core.declaration import Experiment, experiment_of
from engine.core.errors import EmbedlabError, RunFailed, one_line
from engine.runlog import RunWriter, current, naming
from engine.runlog.events import Event, Points, Row
from engine.runlog.states import RunState

__all__ = ["Experiment", "failure_message", "final_values", "run_experiment"]

log = logging.getLogger(__name__)

EventCallback = Callable[[Event], None]


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
    kind: Experiment | str,
    config: Any,
    run_dir: Path,
    stop: threading.Event | None = None,
    on_event: EventCallback | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """Run the experiment ``kind`` (an :class:`Experiment`, or a declared kind) with ``config`` into
    ``run_dir``; return the summary.

    Every metrics row is on disk before the next step starts. User errors (``EmbedlabError``) and any
    other failure (out of memory, CUDA errors) end the run as ``failed`` with a one-line message in
    ``status.json`` and are re-raised; a set ``stop`` ends it as ``stopped``. ``name``: the run's name
    (:func:`engine.runlog.naming.clean_name`; default: one made from what differs), kept in ``config.json``.
    """
    experiment = experiment_of(kind)
    stop = stop or threading.Event()
    settings = {"kind": experiment.kind, **config_dict(config)}
    settings["name"] = (
        naming.clean_name(name) if name is not None else naming.generated_name(experiment, config)
    )
    columns = experiment.columns_for(config)
    writer = RunWriter(run_dir, columns, settings)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        generator: Iterator[Event] = experiment.generator(config, stop)
        for event in current.drive(generator, run_dir, settings["name"]):
            if isinstance(event, Points):
                writer.save_points(event.texts, event.labels)
            elif isinstance(event, Row):
                if event.snapshot is not None:  # the snapshot first: a row on disk promises its snapshot
                    writer.save_snapshot(int(event.step), np.asarray(event.snapshot))
                if event.spectrum is not None:  # and its spectrum
                    writer.append_spectrum(int(event.step), np.asarray(event.spectrum))
                row = event.record(columns)
                writer.append(row)
                rows.append(row)
            if on_event is not None:
                on_event(event)
    except BaseException as err:  # noqa: BLE001 - every failure must end as a recorded state
        state = RunState.STOPPED if isinstance(err, KeyboardInterrupt) else RunState.FAILED
        message = None if state == RunState.STOPPED else failure_message(err, run_dir)
        summary = _summary(experiment, columns, rows, config, started, state)
        writer.finish(state, summary=summary, error=message)
        if message is not None and not isinstance(err, EmbedlabError):
            raise RunFailed(message) from err
        raise
    state = RunState.STOPPED if stop.is_set() else RunState.FINISHED
    summary = _summary(experiment, columns, rows, config, started, state)
    writer.finish(state, summary=summary)
    return summary


def failure_message(err: BaseException, run_dir: Path) -> str:
    """One line for a failed run. A full disk says so; an unexpected error keeps its one line and its whole
    traceback goes to ``error.log`` in the run folder (never to the terminal)."""
    if isinstance(err, EmbedlabError):
        return one_line(err)
    if runlog.is_disk_full(err):
        where = f" writing {Path(err.filename).name}" if getattr(err, "filename", None) else ""
        return f"disk full: no space left on the device{where}; free space and start the run again"
    log_path = Path(run_dir) / runlog.ERROR_LOG
    try:
        log_path.write_text("".join(traceback.format_exception(err)), encoding="utf-8")
    except OSError:
        return one_line(err)
    return f"{one_line(err)} (details in {log_path})"


def _summary(
    experiment: Experiment,
    columns: tuple[str, ...],
    rows: list[dict[str, Any]],
    config: Any,
    started: float,
    state: str,
) -> dict:
    summary: dict[str, Any] = {
        "state": state,
        "steps_logged": len(rows),
        "wall_seconds": time.perf_counter() - started,
    }
    summary["final"] = final_values(rows, columns)
    if experiment.summarize and rows:
        try:
            summary.update(experiment.summarize(rows, config))
        except Exception as err:  # noqa: BLE001 - a summary must never lose the run
            summary["summary_error"] = one_line(err)
    return summary
