"""One run as the server sees it: its state, and what it reads of the run folder.

The run folder is the one source of truth. Rows come from ``metrics.csv``, tailed by byte offset
(:class:`engine.runlog.MetricsTail`), whoever writes it: a child process this server started, a worker
thread of this server, another server, or the CLI. The events a job receives (a child's stdout, the runner's
callback in a thread) only say *that* something is on disk — progress, a new row, a snapshot, the end — so a
run attached from disk and a run started here are read the same way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine import runlog
from engine.core import settings
from engine.core.config_dict import config_dict
from engine.core.errors import DataError
from engine.core.experiments import EXPERIMENTS
from engine.jobs.film import Film
from engine.runlog.events import Event, Finished, Points, Progress, Row, Tick, WireEvent
from engine.runlog.states import RunState

log = logging.getLogger(__name__)


def declared_columns(kind: str, config: Any) -> tuple[str, ...]:
    """The columns a run of ``kind`` will write, before its ``metrics.csv`` header can be read."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None:
        return tuple(config.metric_columns()) if hasattr(config, "metric_columns") else ("step",)
    return experiment.columns_for(config)


class Job:
    """One run: queued → running → finished / stopped / failed (or ``interrupted`` when read from disk).

    Thread-safe: the job worker feeds it events while page threads read it.
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
        self.damaged: str | None = None  # a file of this run that could not be read (named), shown beside it
        self.film = Film(self.run_dir)
        self._declared = declared_columns(kind, config)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._tail = runlog.MetricsTail(self.run_dir)
        self._tail_lock = threading.Lock()
        self._ticks: deque[tuple[float, int]] = deque(maxlen=settings.get("speed_window"))
        self._snapshots: OrderedDict[int, np.ndarray] = OrderedDict()
        self._points: pd.DataFrame | None = None
        self._pca: tuple[int, np.ndarray] | None = None
        self._compacted = False

    # ------------------------------------------------------------------------------------- state

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
    def columns(self) -> tuple[str, ...]:
        """The columns of ``metrics.csv`` (its header once written, else those the run will write)."""
        header = self._tail.columns
        return tuple(header) if header else self._declared

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
        self._sync()
        if self.summary is None:
            self.summary = runlog.read_summary(self.run_dir)
        with self._lock:
            self.error = error
            self.state = state
            self.phase = str(self.state)
            self.ended = time.time()

    def __repr__(self) -> str:
        return f"Job({self.id!r}, {self.kind}, {self.state})"

    # ------------------------------------------------------------------------------------- events

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
            with self._lock:
                self._points = None  # on disk now: read by points()
        elif isinstance(event, Finished):
            self.summary = event.summary
        elif isinstance(event, (Row, Tick)):
            self._sync()
            if isinstance(event, Row) and event.snapshot is not None:
                self._keep_snapshot(event.step, np.asarray(event.snapshot, dtype=np.float32))
                return True
            if isinstance(event, Tick) and event.snapshot:
                return self._load_snapshot(event.step)
        return False

    # --------------------------------------------------------------------------------------- rows

    def _sync(self) -> None:
        """Read the rows completed in ``metrics.csv`` since the last look; note the newest step's time."""
        with self._tail_lock:
            new = self._tail.read_new()
            if new and new[-1].get("step") is not None:
                self._ticks.append((time.perf_counter(), int(new[-1]["step"])))

    def rows(self) -> list[dict[str, Any]]:
        """The rows on disk so far, as dicts over :attr:`columns`."""
        self._sync()
        with self._tail_lock:
            return list(self._tail.rows)

    def metrics(self) -> pd.DataFrame:
        """The metrics so far: the rows of ``metrics.csv``, parsed as :func:`engine.runlog.read_metrics`
        does."""
        self._sync()
        with self._tail_lock:
            if self._tail.columns is None:
                return pd.DataFrame(columns=list(self._declared))
            return self._tail.frame()

    @property
    def bad_rows(self) -> int:
        """Malformed rows of ``metrics.csv`` skipped so far (a damaged row never hides the run)."""
        with self._tail_lock:
            return int(self._tail.bad_rows)

    @property
    def last_step(self) -> int | None:
        self._sync()
        with self._tail_lock:
            rows = self._tail.rows
            step = rows[-1].get("step") if rows else None
        return None if step is None else int(step)

    # ---------------------------------------------------------------------------------- progress

    def progress(self) -> tuple[float, str]:
        """``(fraction 0..1, phase text)``: set-up progress before the first step, then steps done."""
        if self.state == RunState.FINISHED:
            return 1.0, "finished"
        step = self.last_step
        if step is None or not self.total_steps:
            return min(max(self.setup_progress, 0.0), 1.0) * 0.05, self.phase or self.state
        return min(step / max(int(self.total_steps), 1), 1.0), f"step {step}/{self.total_steps}"

    def steps_per_second(self) -> float | None:
        """Steps per second over the last ``speed_window`` times new rows were seen."""
        self._sync()
        with self._tail_lock:
            ticks = list(self._ticks)
        if len(ticks) < 2 or ticks[-1][0] <= ticks[0][0]:
            return None
        return (ticks[-1][1] - ticks[0][1]) / (ticks[-1][0] - ticks[0][0])

    def eta_seconds(self) -> float | None:
        rate, step = self.steps_per_second(), self.last_step
        if not rate or step is None or not self.total_steps or self.state != RunState.RUNNING:
            return None
        return max(int(self.total_steps) - step, 0) / rate

    # ---------------------------------------------------------------------------------- snapshots

    def _keep_snapshot(self, step: int, snapshot: np.ndarray) -> None:
        """Keep the newest few snapshots in memory: the projection worker's work list (older ones stay on
        disk)."""
        with self._lock:
            self._snapshots[int(step)] = snapshot
            while len(self._snapshots) > settings.get("keep_snapshots"):
                self._snapshots.popitem(last=False)

    def _load_snapshot(self, step: int) -> bool:
        path = runlog.snapshot_path(self.run_dir, step)
        try:
            self._keep_snapshot(step, runlog.load_snapshot(path))
        except (OSError, DataError) as err:
            log.warning("job %s: cannot read snapshot %s: %s", self.id, path, err)
            return False
        return True

    def latest_snapshot(self) -> tuple[int, np.ndarray] | None:
        with self._lock:
            if not self._snapshots:
                return None
            step = next(reversed(self._snapshots))
            return step, self._snapshots[step]

    def pending_snapshot(self) -> tuple[int, np.ndarray] | None:
        """The newest snapshot that has no frame yet (older unframed ones are skipped)."""
        latest = self.latest_snapshot()
        if latest is None or latest[0] <= self.film.handled_step:
            return None
        return latest

    # ------------------------------------------------------------------------------------- frames

    @property
    def frame_error(self) -> str | None:
        """The last failed UMAP frame's one-line error."""
        return self.film.error

    def add_frame(self, step: int, coords: np.ndarray, save: bool = True) -> None:
        self.film.add(step, coords, save)

    def skip_frame(self, step: int, error: str | None = None) -> None:
        """Mark ``step`` as handled without a frame (its projection failed with ``error``)."""
        self.film.skip(step, error)

    def nearest_frame(self, step: int) -> np.ndarray | None:
        return self.film.nearest(step)

    def missing_film_step(self, max_frames: int | None = None) -> int | None:
        """After the run: the first of ``film_frames`` evenly spaced snapshot steps on disk without a
        frame."""
        if self.active or self.from_disk:
            return None
        steps = [step for step, _ in runlog.list_snapshots(self.run_dir)]
        return self.film.missing(steps, max_frames or settings.get("film_frames"))

    def film_line(self) -> str | None:
        """After the run, while its film is back-filled: "film 12/31 frames · 2/s · 9 s left"; else None."""
        if self.active or self.from_disk:
            return None
        steps = [step for step, _ in runlog.list_snapshots(self.run_dir)]
        return self.film.progress_text(steps, settings.get("film_frames"))

    def compact(self) -> int:
        """Once the run has ended and its film is made: remove the snapshots the film no longer needs
        (:func:`engine.runlog.compaction.prune_snapshots`), once; returns the bytes freed. A run attached from
        disk is left as it is (its film is not this server's to make)."""
        if self._compacted or self.active or self.from_disk or self.missing_film_step() is not None:
            return 0
        self._compacted = True
        from engine.runlog.compaction import prune_snapshots

        return prune_snapshots(self.run_dir, settings.get("film_frames"))

    def frames(self) -> dict[int, np.ndarray]:
        """UMAP frames by step (those on disk included, for runs attached from disk)."""
        if self.from_disk:
            self.film.load_from_disk()
        return self.film.frames()

    def last_frame(self) -> tuple[int, np.ndarray] | None:
        frames = self.frames()
        if not frames:
            return None
        step = max(frames)
        return step, frames[step]

    # ------------------------------------------------------------------------------- points, view

    def points(self) -> pd.DataFrame:
        """Texts and labels of the projected points (``text``, ``label``), from ``points.csv``."""
        with self._lock:
            if self._points is not None:
                return self._points.copy()
        try:
            frame = runlog.read_points(self.run_dir)
        except (OSError, ValueError):
            frame = pd.DataFrame(columns=["text", "label"])
        if len(frame):
            frame["label"] = frame["label"].astype(str)
            with self._lock:
                self._points = frame
        return frame.copy()

    def view(self) -> tuple[str, int, np.ndarray] | None:
        """What the projection panel shows now: the newest UMAP frame, else a PCA of the newest snapshot.

        Returns ``(method, step, coords)`` with method ``"umap"`` or ``"pca"``.
        """
        frame = self.last_frame()
        if frame is not None:
            return "umap", frame[0], frame[1]
        latest = self.latest_snapshot()
        if latest is None and self.from_disk:
            found = runlog.list_snapshots(self.run_dir)
            if found:
                try:
                    latest = (found[-1][0], runlog.load_snapshot(found[-1][1]))
                except DataError as err:  # shown beside this run's panel; other runs are not concerned
                    self.damaged = str(err)
                    return None
        if latest is None:
            return None
        from engine.charts.projection_frames import pca_2d

        if self._pca is None or self._pca[0] != latest[0]:
            self._pca = (latest[0], pca_2d(latest[1]))
        return "pca", self._pca[0], self._pca[1]

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
