"""Runs trained side by side, each in a process of its own with its share of the CPUs.

``python -m engine.simcse.figure2_runs`` and ``python -m engine lessons check`` run their runs here:
``workers`` spawned processes (fresh interpreters: no forked torch thread pools; :func:`run_side_by_side`),
the runs taken in the order given (put the longest first, so a short one fills the end), each run with
``CPUs // runs going`` torch threads (:class:`CpuShare`: when the other workers have no run left, the last run
takes their CPUs too). Each run's folder and numbers are those it has alone (same seed, same batches), to the
rounding of sums over another thread count. On this project's 2-core machine two one-thread runs do 1.3×
the steps of one two-thread run: a step's small ops (dropout masks, layer norms, the optimiser) use one core
of two poorly, two processes keep both busy (docs/performance.md).

OpenMP threads wait passively in the workers (the setting ``omp_wait_policy``, applied before torch loads:
:func:`engine.core.settings.apply_openmp_wait_policy`).

A Ctrl-C or SIGTERM of the command, or a run that fails, stops the runs in progress between two steps
(SIGTERM to the workers, whose runs end ``stopped``, recorded, as a run in the command's own process does;
SIGKILL after the setting ``stop_grace_seconds``), starts no other, and is raised in the command. The workers
are processes of this module with a pipe each, not a ``multiprocessing.Pool``: a pool's workers share the
lock of one task queue, and a worker ended by a signal while it waits holds it, which hangs
``Pool.terminate`` (seen here, 2026-11-29).
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from engine.core.declaration import Experiment


@dataclass(frozen=True)
class PlannedRun:
    """One run to train: its ``experiment`` (sent to a worker process pickled: its parts by reference, so
    that the worker imports the experiment's entry), its validated ``config``, its folder ``out``; ``line``,
    when given, is printed on stderr as the run starts."""

    experiment: Experiment
    config: Any
    out: Path
    line: str = ""


#: the count of runs going, shared by the worker processes (set by :func:`_work` in each of them)
_running: Any = None
_in_run = False  # whether this worker is training a run now


def _stop_signal(signum: int, frame: object) -> None:
    """SIGTERM or SIGINT in a worker: during a run, KeyboardInterrupt, which ends the run ``stopped`` between
    two steps, recorded (:func:`engine.runlog.runner.run_experiment`), as Ctrl-C does in the command's own
    process; between runs, a quiet exit."""
    if _in_run:
        raise KeyboardInterrupt
    raise SystemExit(0)


class CpuShare:
    """Torch threads of this run: the CPUs shared among the runs going now, looked at after every event (in
    the training thread: OpenMP's thread count belongs to the thread that sets it)."""

    def __init__(self, running: Any, cpus: int):
        self.running, self.cpus, self.threads = running, cpus, 0

    def __enter__(self) -> CpuShare:
        with self.running.get_lock():
            self.running.value += 1
        self.update()
        return self

    def __exit__(self, *exc: object) -> None:
        with self.running.get_lock():
            self.running.value -= 1

    def update(self, _event: object = None) -> None:
        threads = max(1, self.cpus // max(1, self.running.value))
        if threads != self.threads:
            import torch

            torch.set_num_threads(threads)
            self.threads = threads


def run_one(run: PlannedRun, cpus: int | None = None) -> dict[str, Any] | None:
    """Train ``run`` into its folder; its summary. In a worker process (``cpus`` given), with its
    :class:`CpuShare` of the ``cpus``, and None when a stop signal ended it (recorded ``stopped``)."""
    from engine.runlog.runner import run_experiment

    global _in_run
    if run.line:
        print(run.line, file=sys.stderr, flush=True)
    if cpus is None or _running is None:
        return run_experiment(run.experiment, run.config, run.out)
    _in_run = True
    try:
        with CpuShare(_running, cpus) as share:
            return run_experiment(run.experiment, run.config, run.out, on_event=share.update)
    except KeyboardInterrupt:
        return None
    finally:
        _in_run = False


def _work(connection: Connection, running: Any, cpus: int) -> None:
    """A worker process: OpenMP's wait policy (before torch loads) and the stop signals, then each run sent
    on ``connection`` trained, its summary (or its error) sent back, until None or the pipe closes."""
    global _running
    from engine.core import settings

    settings.apply_openmp_wait_policy()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, _stop_signal)
    _running = running
    while True:
        try:
            run = connection.recv()
        except EOFError:
            return
        if run is None:
            return
        try:
            connection.send(("done", run_one(run, cpus)))
        except Exception as err:  # noqa: BLE001 - the command raises it (one line for the user there)
            try:
                connection.send(("failed", err))
            except Exception:  # noqa: BLE001 - an error that cannot be pickled: its line (nothing was sent)
                from engine.core.errors import one_line

                connection.send(("failed", RuntimeError(one_line(err))))


@dataclass
class _Lane:
    """A worker process, the parent's end of its pipe, and the index of the run it trains (None: idle)."""

    process: Any
    connection: Connection
    index: int | None = None


def run_side_by_side(runs: Sequence[PlannedRun], workers: int, cpus: int) -> list[dict[str, Any]]:
    """Every run, ``workers`` at a time (1 or fewer: in this process, one after another), sharing ``cpus``;
    their summaries in ``runs`` order.

    Each worker is a spawned process with a pipe of its own (a worker that dies holds no lock another one
    needs); a run goes to a worker only when it is idle and no run has failed. The first run to fail raises
    here as it fails; Ctrl-C or SIGTERM of this process raises here too; either way the runs in progress are
    stopped first (:func:`_stop`) and no other run starts."""
    if workers <= 1:
        return [run_one(run) for run in runs]
    from engine.runlog import side_by_side as module  # by its module's name, also under python -m

    spawn = multiprocessing.get_context("spawn")
    running = spawn.Value("i", 0)
    lanes: list[_Lane] = []
    summaries: list[dict[str, Any] | None] = [None] * len(runs)
    waiting = list(range(len(runs)))
    try:
        for _ in range(min(workers, len(runs))):
            ours, theirs = spawn.Pipe()
            process = spawn.Process(target=module._work, args=(theirs, running, cpus), daemon=True)
            process.start()
            theirs.close()
            lanes.append(_Lane(process, ours))
        while waiting or any(lane.index is not None for lane in lanes):
            for lane in lanes:
                if lane.index is None and waiting:
                    lane.index = waiting.pop(0)
                    lane.connection.send(runs[lane.index])
            busy = {lane.connection: lane for lane in lanes if lane.index is not None}
            for connection in wait(list(busy)):
                lane = busy[connection]
                summaries[lane.index] = _answer(lane, runs[lane.index])
                lane.index = None
    except BaseException:  # a failed run, Ctrl-C or SIGTERM: the runs in progress stop, no other starts
        _stop(lanes)
        raise
    for lane in lanes:
        lane.connection.send(None)
        lane.process.join()
    return summaries  # type: ignore[return-value] - every index answered


def _answer(lane: _Lane, run: PlannedRun) -> dict[str, Any]:
    """The summary a worker sent back for ``run``; its error raised; KeyboardInterrupt when a signal sent to
    the worker alone stopped the run (the command stops, as on Ctrl-C)."""
    try:
        outcome, value = lane.connection.recv()
    except EOFError:
        lane.process.join(5)
        raise RuntimeError(
            f"{run.out.name}: its worker process ended (exit code {lane.process.exitcode})"
        ) from None
    if outcome == "failed":
        raise value
    if value is None:
        raise KeyboardInterrupt
    return value


def _stop(lanes: list[_Lane]) -> None:
    """SIGTERM to each worker (a run in progress ends ``stopped``, recorded; an idle worker exits), then wait
    for them, up to the setting ``stop_grace_seconds`` in all; SIGKILL to any still alive then."""
    from engine.core import settings

    for lane in lanes:
        if lane.process.is_alive():
            lane.process.terminate()  # SIGTERM on POSIX
    deadline = time.monotonic() + settings.get("stop_grace_seconds")
    for lane in lanes:
        lane.process.join(max(0.0, deadline - time.monotonic()))
    for lane in lanes:
        if lane.process.is_alive():
            lane.process.kill()
            lane.process.join()
        lane.connection.close()
