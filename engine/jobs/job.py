"""One run as the server sees it: where it is in the queue (its :class:`RunState`), the events of the
process that runs it, and what it reads of its run folder.

The run folder is the one source of truth. Rows come from ``metrics.csv`` (:class:`engine.jobs.rows.RunRows`),
snapshots, frames and points from their files (:class:`engine.jobs.pictures.RunPictures`), whoever writes
them: a child process this server started (:mod:`engine.jobs.children`), a worker thread of this server,
another server, or the CLI. The events a job receives (a child's stdout, the runner's callback in a thread)
only say *that* something is on disk — progress, a new row, a snapshot, the end — so a run attached from
disk and a run started here are read the same way.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine import runlog
from engine.core import settings
from engine.core.config_dict import config_dict
from engine.jobs.pictures import RunPictures, View
from engine.jobs.rows import RunRows, declared_columns
from engine.runlog.events import Event, Finished, Points, Progress, Row, Tick, WireEvent
from engine.runlog.states import RunState


class Job:
    """One run: queued → running → finished / stopped / failed (or ``interrupted`` when read from disk).

    Its rows are :attr:`rows` (:class:`~engine.jobs.rows.RunRows`: ``job.rows.metrics()``,
    ``job.rows.last_step``), its snapshots, film and points :attr:`pictures`
    (:class:`~engine.jobs.pictures.RunPictures`: ``job.pictures.points()``, ``job.pictures.film``); the job
    itself keeps what needs its state besides (progress, frames and view of a run attached from disk, its
    film's back-fill). Thread-safe: the job worker feeds it events while page threads read it.
    """

    def __init__(
        self, kind: str, config: Any, run_dir: Path, name: str, *, state: RunState | str = RunState.QUEUED
    ):
        self.id = Path(run_dir).name
        self.name = name  # the run's readable name (engine.runlog.naming)
        self.label = name  # the name, made unique among the registry's runs (JobRegistry: "name (2)")
        self.group: str | None = None  # runs queued together (a preset's) may run side by side
        self.kind = kind
        self.config = config
        self.run_dir = Path(run_dir)
        self.state = state
        self.error: str | None = None
        self.created = time.time()
        self.started: float | None = None
        self.ended: float | None = None
        self.phase = "queued" if self.state == RunState.QUEUED else ""
        self.setup_progress = 0.0
        self.total_steps: int | None = config_dict(config).get("steps")
        self.from_disk = False
        self.pid: int | None = None  # the child process running this job (process isolation)
        self.summary: dict[str, Any] | None = None
        self.rows = RunRows(self.run_dir, declared_columns(kind, config))
        self.pictures = RunPictures(self.id, self.run_dir)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._compacted = False

    # --------------------------------------------------------------------------------- queueing

    @property
    def state(self) -> RunState:
        """The run's state (set from a :class:`RunState` or its string)."""
        return self._state

    @state.setter
    def state(self, value: RunState | str) -> None:
        self._state = RunState(value)

    @property
    def active(self) -> bool:
        return self.state.active

    @property
    def config_dict(self) -> dict[str, Any]:
        return config_dict(self.config)

    @property
    def stop_event(self) -> threading.Event:
        return self._stop

    def stop(self) -> None:
        """Cancel a queued job; ask a running one to end after its current step (a run attached from disk,
        written by another process, through :func:`engine.runlog.request_stop`)."""
        if self.from_disk and self.state == RunState.RUNNING:
            if runlog.request_stop(self.run_dir):
                self.phase = "stopping"
            return
        self._stop.set()
        with self._lock:
            if self.state == RunState.QUEUED:
                self.state = RunState.STOPPED
                self.phase = "cancelled"
                self.ended = time.time()

    def begin(self) -> bool:
        """queued → running (the worker takes it); False when it was cancelled meanwhile."""
        with self._lock:
            if self.state != RunState.QUEUED:
                return False
            self.state, self.phase, self.started = RunState.RUNNING, "starting", time.time()
            return True

    def end(self, state: RunState, error: str | None = None) -> None:
        """Record the end of the run (its writer is done): the last rows are read before the state changes."""
        self.rows.sync()
        if self.summary is None:
            self.summary = runlog.read_summary(self.run_dir)
        with self._lock:
            self.error = error
            self.state = state
            self.phase = str(self.state)
            self.ended = time.time()

    def __repr__(self) -> str:
        return f"Job({self.id!r}, {self.kind}, {self.state})"

    # ---------------------------------------------------------------------------- its process's events

    def on_event(self, event: Event | WireEvent) -> bool:
        """An event of the run (runner callback or child's stdout); True when a new snapshot is kept.

        Rows are never taken from the event: a :class:`Row` or :class:`Tick` says that ``metrics.csv``
        grew, and the new rows are read from there. A Row's snapshot is kept as it is (the thread runner
        hands it over); a Tick's is read back from the run folder.
        """
        if isinstance(event, Progress):
            with self._lock:
                self.phase = event.phase
                if event.fraction is not None:
                    self.setup_progress = float(event.fraction)
        elif isinstance(event, Points):
            self.pictures.forget_points()  # on disk now: read by pictures.points()
        elif isinstance(event, Finished):
            self.summary = event.summary
        elif isinstance(event, (Row, Tick)):
            self.rows.sync()
            if isinstance(event, Row) and event.snapshot is not None:
                self.pictures.keep_snapshot(event.step, np.asarray(event.snapshot, dtype=np.float32))
                return True
            if isinstance(event, Tick) and event.snapshot:
                return self.pictures.load_snapshot(event.step)
        return False

    # ------------------------------------------------------------------------------ rows, progress

    def progress(self) -> tuple[float, str]:
        """``(fraction 0..1, phase text)``: set-up progress before the first step, then steps done."""
        if self.state == RunState.FINISHED:
            return 1.0, "finished"
        step = self.rows.last_step
        if step is None or not self.total_steps:
            return min(max(self.setup_progress, 0.0), 1.0) * 0.05, self.phase or self.state
        return min(step / max(int(self.total_steps), 1), 1.0), f"step {step}/{self.total_steps}"

    def eta_seconds(self) -> float | None:
        rate, step = self.rows.steps_per_second(), self.rows.last_step
        if not rate or step is None or not self.total_steps or self.state != RunState.RUNNING:
            return None
        return max(int(self.total_steps) - step, 0) / rate

    # ------------------------------------------------------------------------------------ pictures

    def frames(self) -> dict[int, np.ndarray]:
        """UMAP frames by step (those on disk included, for runs attached from disk)."""
        return self.pictures.frames(self.from_disk)

    def view(self) -> View | None:
        """What the projection panel shows now: ``(method, step, coords)``, the newest UMAP frame
        (``"umap"``), else a PCA of the newest snapshot (``"pca"``)."""
        return self.pictures.view(self.from_disk)

    def _film_is_ours(self) -> bool:
        """The run ended here: its film is this server's to make (not a run attached from disk)."""
        return not (self.active or self.from_disk)

    def missing_film_step(self, max_frames: int | None = None) -> int | None:
        """After the run: the first of ``film_frames`` evenly spaced snapshot steps on disk without a
        frame."""
        if not self._film_is_ours():
            return None
        return self.pictures.missing_film_step(max_frames or settings.get("film_frames"))

    def film_line(self) -> str | None:
        """After the run, while its film is back-filled: "film 12/31 frames · 2/s · 9 s left"; else None."""
        return self.pictures.film_line(settings.get("film_frames")) if self._film_is_ours() else None

    def compact(self) -> int:
        """Once the run has ended and its film is made: remove the snapshots the film no longer needs
        (:func:`engine.runlog.compaction.prune_snapshots`), once; returns the bytes freed. A run attached from
        disk is left as it is (its film is not this server's to make)."""
        if self._compacted or not self._film_is_ours() or self.missing_film_step() is not None:
            return 0
        self._compacted = True
        from engine.runlog.compaction import prune_snapshots

        return prune_snapshots(self.run_dir, settings.get("film_frames"))

    # ------------------------------------------------------------------------------- from disk

    @classmethod
    def from_run(cls, info: runlog.RunInfo) -> Job:
        """A run found on disk (another server, the CLI, before a restart), read through its folder."""
        config = {k: v for k, v in info.config.items() if k not in ("kind", runlog.naming.NAME_KEY)}
        job = cls(info.kind, config, info.path, info.run_name or info.name, state=info.state)
        job.from_disk = True
        job.error = info.error
        job.started = info.started
        job.phase = str(info.state)
        job.summary = runlog.read_summary(info.path)
        return job

    def refresh_from_disk(self) -> None:
        """Re-read the state of an attached run (one still written by another process)."""
        if not self.from_disk:
            return
        try:
            self.state = runlog.run_state(self.run_dir)
            status = runlog.read_json(self.run_dir / runlog.STATUS)
            self.error = status.get("error")
        except (OSError, ValueError):
            return
        if self.summary is None and not self.active:
            self.summary = runlog.read_summary(self.run_dir)
