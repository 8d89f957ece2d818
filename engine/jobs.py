"""Background jobs: queued experiment runs executed one after another by ONE worker thread.

The page script of a web UI is rerun on every click, so runs must live outside it. A
:class:`JobRegistry` (held once per server process, e.g. by ``st.cache_resource``) owns

- a FIFO queue and one worker thread calling :func:`engine.runner.run_experiment`; failures of any kind
  become ``failed`` jobs with a one-line message and the worker goes on with the next job;
- a :class:`ProjectionWorker`: a low-priority thread that turns the newest embedding snapshot of each
  run into a UMAP frame (skipping older ones when behind) and writes ``frames/step_NNNNNN.csv``.

A :class:`Job` is the live, thread-safe view of one run: rows, progress, speed, snapshots and frames.
Runs already on disk (other sessions, the CLI, before a restart) are attached read-only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine import paths, runlog
from engine.errors import ConfigError, one_line
from engine.runner import EXPERIMENTS, run_experiment

log = logging.getLogger(__name__)

ACTIVE_STATES = ("queued", "running")
GIL_SWITCH_SECONDS = 0.001  # the training thread waits at most this long for the GIL held by UI threads
FRAMES = "frames"
KEEP_SNAPSHOTS = 3
FILM_FRAMES = 40  # frames a finished run's film gets (missing ones are back-filled from snapshots on disk)
SPEED_WINDOW = 30


def _config_dict(config: Any) -> dict[str, Any]:
    if is_dataclass(config):
        return asdict(config)
    return dict(config) if isinstance(config, dict) else {}


def _columns(kind: str, config: Any) -> tuple[str, ...]:
    if hasattr(config, "metric_columns"):
        return tuple(config.metric_columns())
    experiment = EXPERIMENTS.get(kind)
    return experiment.columns if experiment else ("step",)


class Job:
    """One run: queued → running → finished / stopped / failed (or ``interrupted`` when read from disk)."""

    def __init__(self, kind: str, config: Any, run_dir: Path, name: str, *, state: str = "queued"):
        self.id = Path(run_dir).name
        self.name = name
        self.kind = kind
        self.config = config
        self.run_dir = Path(run_dir)
        self.state = state
        self.error: str | None = None
        self.created = time.time()
        self.started: float | None = None
        self.ended: float | None = None
        self.phase = "queued" if state == "queued" else ""
        self.setup_progress = 0.0
        self.columns = _columns(kind, config)
        self.total_steps: int | None = _config_dict(config).get("steps")
        self.from_disk = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._rows: list[dict[str, Any]] = []
        self._ticks: deque[tuple[float, int]] = deque(maxlen=SPEED_WINDOW)
        self._snapshots: OrderedDict[int, np.ndarray] = OrderedDict()
        self._frames: dict[int, np.ndarray] = {}
        self._framed_step = -1
        self.frame_error: str | None = None
        self._failed_frames: set[int] = set()
        self._pca: tuple[int, np.ndarray] | None = None
        self._points: pd.DataFrame | None = None
        self._disk_cache: tuple[tuple[int, float], pd.DataFrame] | None = None

    # ------------------------------------------------------------------------------------- state

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def config_dict(self) -> dict[str, Any]:
        return _config_dict(self.config)

    @property
    def stop_event(self) -> threading.Event:
        return self._stop

    def stop(self) -> None:
        """Cancel a queued job; ask a running one to end after its current step."""
        self._stop.set()
        with self._lock:
            if self.state == "queued":
                self.state = "stopped"
                self.phase = "cancelled"
                self.ended = time.time()

    def __repr__(self) -> str:
        return f"Job({self.id!r}, {self.kind}, {self.state})"

    # ------------------------------------------------------------------------------------- events

    def on_event(self, event: dict[str, Any]) -> None:
        """Runner callback (worker thread): record a metrics row, progress, points or a snapshot."""
        now = time.perf_counter()
        with self._lock:
            if "phase" in event:
                self.phase = str(event["phase"])
            if "progress" in event and event["progress"] is not None:
                self.setup_progress = float(event["progress"])
            if "points" in event:
                texts, labels = event["points"]
                self._points = pd.DataFrame({"text": list(texts), "label": [str(x) for x in (labels or [""] * len(texts))]})
            if "step" in event:
                row = {column: event.get(column) for column in self.columns}
                self._rows.append(row)
                self._ticks.append((now, int(event["step"])))
                snapshot = event.get("snapshot")
                if snapshot is not None:
                    self._snapshots[int(event["step"])] = np.asarray(snapshot, dtype=np.float32)
                    while len(self._snapshots) > KEEP_SNAPSHOTS:
                        self._snapshots.popitem(last=False)

    # --------------------------------------------------------------------------------------- rows

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._rows)

    def metrics(self) -> pd.DataFrame:
        """The metrics so far (live rows, or ``metrics.csv`` for runs read from disk; re-read when it grows)."""
        if not self.from_disk:
            rows = self.rows()
            if rows:
                return pd.DataFrame(rows, columns=list(self.columns))
            return pd.DataFrame(columns=list(self.columns))
        path = self.run_dir / runlog.METRICS
        try:
            stat = path.stat()
        except OSError:
            return pd.DataFrame(columns=list(self.columns))
        key = (stat.st_size, stat.st_mtime)
        if self._disk_cache is None or self._disk_cache[0] != key:
            try:
                frame = runlog.read_metrics(self.run_dir)
            except (OSError, ValueError, pd.errors.ParserError) as err:
                log.warning("cannot read %s: %s", path, err)
                frame = pd.DataFrame(columns=list(self.columns))
            self._disk_cache = (key, frame)
        return self._disk_cache[1].copy()

    @property
    def last_step(self) -> int | None:
        with self._lock:
            if self._rows:
                return int(self._rows[-1]["step"])
        if self.from_disk:
            frame = self.metrics()
            if "step" in frame and len(frame):
                return int(frame["step"].iloc[-1])
        return None

    # ---------------------------------------------------------------------------------- progress

    def progress(self) -> tuple[float, str]:
        """``(fraction 0..1, phase text)``: set-up progress before the first step, then steps done."""
        if self.state == "finished":
            return 1.0, "finished"
        step = self.last_step
        if step is None or not self.total_steps:
            return min(max(self.setup_progress, 0.0), 1.0) * 0.05, self.phase or self.state
        return min(step / max(int(self.total_steps), 1), 1.0), f"step {step}/{self.total_steps}"

    def steps_per_second(self) -> float | None:
        with self._lock:
            ticks = list(self._ticks)
        if len(ticks) < 2 or ticks[-1][0] <= ticks[0][0]:
            return None
        return (ticks[-1][1] - ticks[0][1]) / (ticks[-1][0] - ticks[0][0])

    def eta_seconds(self) -> float | None:
        rate, step = self.steps_per_second(), self.last_step
        if not rate or step is None or not self.total_steps or self.state != "running":
            return None
        return max(int(self.total_steps) - step, 0) / rate

    # ------------------------------------------------------------------------ snapshots & frames

    def latest_snapshot(self) -> tuple[int, np.ndarray] | None:
        with self._lock:
            if not self._snapshots:
                return None
            step = next(reversed(self._snapshots))
            return step, self._snapshots[step]

    def pending_snapshot(self) -> tuple[int, np.ndarray] | None:
        """The newest snapshot that has no frame yet (older unframed ones are skipped)."""
        latest = self.latest_snapshot()
        if latest is None or latest[0] <= self._framed_step:
            return None
        return latest

    def add_frame(self, step: int, coords: np.ndarray, save: bool = True) -> None:
        coords = np.asarray(coords, dtype=np.float32)
        if save:  # on disk first, so a frame seen in memory is always on disk too
            folder = self.run_dir / FRAMES
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".step_{int(step):06d}.csv.tmp"
            pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1]}).to_csv(tmp, index=False, float_format="%.5g")
            os.replace(tmp, folder / f"step_{int(step):06d}.csv")
        with self._lock:
            self._frames[int(step)] = coords
            self._framed_step = max(self._framed_step, int(step))

    def missing_film_step(self, max_frames: int = FILM_FRAMES) -> int | None:
        """After the run: the first of ``max_frames`` evenly spaced snapshot steps on disk without a frame."""
        if self.active or self.from_disk:
            return None
        steps = [step for step, _ in runlog.list_snapshots(self.run_dir)]
        if len(steps) > max_frames:
            keep = np.unique(np.linspace(0, len(steps) - 1, max_frames).round().astype(int))
            steps = [steps[i] for i in keep]
        with self._lock:
            done = set(self._frames) | self._failed_frames
        missing = [step for step in steps if step not in done]
        return missing[0] if missing else None

    def nearest_frame(self, step: int) -> np.ndarray | None:
        """The frame closest to ``step`` (an earlier one preferred): the warm start of a back-filled frame."""
        with self._lock:
            if not self._frames:
                return None
            earlier = [s for s in self._frames if s < step]
            chosen = max(earlier) if earlier else min(self._frames, key=lambda s: abs(s - step))
            return self._frames[chosen]

    def skip_frame(self, step: int) -> None:
        """Mark ``step`` as handled without a frame (its projection failed)."""
        with self._lock:
            self._framed_step = max(self._framed_step, int(step))
            self._failed_frames.add(int(step))

    def frames(self) -> dict[int, np.ndarray]:
        """UMAP frames by step (loaded from ``frames/`` on disk for attached runs)."""
        if self.from_disk:
            self._load_frames()
        with self._lock:
            return dict(sorted(self._frames.items()))

    def last_frame(self) -> tuple[int, np.ndarray] | None:
        frames = self.frames()
        if not frames:
            return None
        step = max(frames)
        return step, frames[step]

    def _load_frames(self) -> None:
        folder = self.run_dir / FRAMES
        if not folder.is_dir():
            return
        for path in folder.glob("step_*.csv"):
            try:
                step = int(path.stem.split("_")[1])
            except (IndexError, ValueError):
                continue
            if step in self._frames:
                continue
            try:
                frame = pd.read_csv(path)
                coords = frame[["x", "y"]].to_numpy(dtype=np.float32)
            except (OSError, ValueError, KeyError, pd.errors.ParserError) as err:
                log.warning("skipping frame %s: %s", path, err)
                continue
            with self._lock:
                self._frames[step] = coords
                self._framed_step = max(self._framed_step, step)

    def points(self) -> pd.DataFrame:
        """Texts and labels of the projected points (``text``, ``label``)."""
        with self._lock:
            if self._points is not None:
                return self._points.copy()
        try:
            frame = runlog.read_points(self.run_dir)
        except (OSError, ValueError, pd.errors.ParserError):
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
                latest = (found[-1][0], runlog.load_snapshot(found[-1][1]))
        if latest is None:
            return None
        from engine.projection import pca_2d

        if self._pca is None or self._pca[0] != latest[0]:
            self._pca = (latest[0], pca_2d(latest[1]))
        return "pca", self._pca[0], self._pca[1]

    # ------------------------------------------------------------------------------- from disk

    @classmethod
    def from_run(cls, info: runlog.RunInfo) -> Job:
        config = {k: v for k, v in info.config.items() if k != "kind"}
        job = cls(info.kind, config, info.path, info.name, state=info.state)
        job.from_disk = True
        job.error = info.error
        job.started = info.started
        job.phase = info.state
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
            pass


class JobRegistry:
    """Thread-safe registry of jobs with one FIFO worker thread and one projection thread."""

    def __init__(self, runs_root: Path | None = None, *, project: bool = True, projection_nice: int = 10):
        self.runs_root = Path(runs_root) if runs_root is not None else paths.runs_dir()
        # A training step releases and re-takes the GIL hundreds of times (every torch op); with Python's
        # default 5 ms switch interval, a busy UI thread (figures every second) makes each re-take wait.
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_SECONDS))
        self.runs_root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._jobs: dict[str, Job] = {}
        self._queue: deque[Job] = deque()
        self._closed = False
        self._current: Job | None = None
        self._listeners: list[Callable[[Job, dict[str, Any]], None]] = []
        self.projector = ProjectionWorker(self, nice=projection_nice) if project else None
        self._worker = threading.Thread(target=self._work, name="embedlab-jobs", daemon=True)
        self._worker.start()

    # ---------------------------------------------------------------------------------- public

    def submit(self, kind: str, config: Any, name: str | None = None) -> Job:
        """Queue a run of ``kind``; ``config`` is the experiment's config dataclass or a dict of its fields.

        Raises :class:`ConfigError` (one line) for an unknown kind or invalid settings.
        """
        if kind not in EXPERIMENTS:
            raise ConfigError(f"unknown experiment {kind!r} (known: {', '.join(EXPERIMENTS)})")
        if isinstance(config, dict):
            try:
                config = EXPERIMENTS[kind].make_config(**config)
            except TypeError as err:
                raise ConfigError(f"{kind} settings: {one_line(err)}") from err
        label = paths.safe_name(name or kind, what="run name")
        with self._lock:
            if self._closed:
                raise ConfigError("the job registry is shut down")
            run_dir = self.runs_root / paths.new_run_name(label)
            while run_dir.name in self._jobs or run_dir.exists():
                run_dir = self.runs_root / paths.new_run_name(label)
            job = Job(kind, config, run_dir, label)
            self._jobs[job.id] = job
            self._queue.append(job)
            self._wake.notify_all()
        return job

    def jobs(self) -> list[Job]:
        """All known jobs, oldest first."""
        with self._lock:
            return list(self._jobs.values())

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def active(self) -> list[Job]:
        return [job for job in self.jobs() if job.active]

    @property
    def current(self) -> Job | None:
        return self._current

    def attach_finished(self) -> list[Job]:
        """Add runs found on disk (finished, stopped, failed, interrupted, or written by another process)."""
        added = []
        for info in runlog.list_runs(self.runs_root):
            with self._lock:
                known = self._jobs.get(info.name)
                if known is None:
                    job = Job.from_run(info)
                    self._jobs[job.id] = job
                    added.append(job)
                elif known.from_disk:
                    known.refresh_from_disk()
        if added:
            with self._lock:
                self._jobs = dict(sorted(self._jobs.items(), key=lambda item: item[1].started or item[1].created))
        return added

    def forget(self, job_id: str) -> None:
        """Drop a finished job from the registry (its folder stays on disk)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None and not job.active:
                del self._jobs[job_id]

    def projecting(self, job: Job) -> bool:
        """Whether UMAP frames of ``job`` are still to come (live snapshot pending or the film back-filling)."""
        if self.projector is None or not self.projector.alive:
            return False
        return job.pending_snapshot() is not None or job.missing_film_step() is not None

    def stop_all(self) -> None:
        for job in self.active():
            job.stop()

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until no job is queued or running (tests, scripts)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.active():
                return True
            time.sleep(0.02)
        return False

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop everything and end the threads (tests; the server just exits)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        self.stop_all()
        self._worker.join(timeout)
        if self.projector is not None:
            self.projector.close(timeout)

    # ---------------------------------------------------------------------------------- worker

    def _next(self) -> Job | None:
        with self._lock:
            while True:
                while self._queue:
                    job = self._queue.popleft()
                    if job.state == "queued":
                        return job
                if self._closed:
                    return None
                self._wake.wait(timeout=1.0)

    def _work(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            self._current = job
            try:
                self._run(job)
            finally:
                self._current = None

    def _run(self, job: Job) -> None:
        with job._lock:
            if job.state != "queued":
                return
            job.state = "running"
            job.started = time.time()
            job.phase = "starting"

        def on_event(event: dict[str, Any]) -> None:
            job.on_event(event)
            if "snapshot" in event and self.projector is not None:
                self.projector.notify()

        try:
            run_experiment(job.kind, job.config, job.run_dir, job.stop_event, on_event)
        except BaseException as err:  # noqa: BLE001 - the worker must survive every failure
            interrupted = isinstance(err, KeyboardInterrupt)
            job.error = None if interrupted else one_line(err)
            job.state = "stopped" if interrupted else "failed"
            job.phase = job.state
            if not interrupted:
                log.warning("job %s failed: %s", job.id, job.error)
        else:
            job.state = "stopped" if job.stop_event.is_set() else "finished"
            job.phase = job.state
        finally:
            job.ended = time.time()
            if self.projector is not None:
                self.projector.notify()


class ProjectionWorker:
    """Low-priority thread turning each job's newest snapshot into a warm-started UMAP frame.

    CPU budget: the thread lowers its own scheduling priority (Linux ``setpriority`` on the thread id,
    nice ``nice``) and numba's thread count to 1, so the training thread keeps the cores; when training
    produces snapshots faster than frames, older snapshots are skipped and the newest is projected.
    It pre-warms umap-learn's JIT when it starts (before lowering its priority).
    """

    def __init__(self, registry: JobRegistry, *, nice: int = 10, prewarm: bool = True):
        self.registry = registry
        self.nice = nice
        self._prewarm = prewarm
        self._wake = threading.Event()
        self._closed = threading.Event()
        self.busy_with: str | None = None
        self.frame_seconds: list[float] = []
        self._thread = threading.Thread(target=self._loop, name="embedlab-umap", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        self._wake.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._closed.is_set()

    def close(self, timeout: float = 5.0) -> None:
        self._closed.set()
        self._wake.set()
        self._thread.join(timeout)

    def _lower_priority(self) -> None:
        with contextlib.suppress(AttributeError, OSError, PermissionError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
        try:
            import numba

            numba.set_num_threads(1)
        except Exception:  # noqa: BLE001 - numba missing or no threading layer: nothing to limit
            pass

    def _loop(self) -> None:
        if self._prewarm:  # at normal priority: at app start nothing trains yet, and a starved JIT is slow
            try:
                from engine.projection import prewarm_umap

                prewarm_umap()
            except Exception as err:  # noqa: BLE001 - a failed warm-up only costs time later
                log.warning("UMAP warm-up failed: %s", one_line(err))
        self._lower_priority()
        while not self._closed.is_set():
            self._wake.wait(timeout=0.5)
            self._wake.clear()
            while not self._closed.is_set() and self._project_one():
                pass

    def _project_one(self) -> bool:
        """Project one snapshot: the newest of a running job first, else back-fill a finished run's film.

        Returns False when nothing is pending.
        """
        jobs = sorted(self.registry.jobs(), key=lambda job: job.state != "running")
        work = [(job, job.pending_snapshot(), None) for job in jobs]
        work = [item for item in work if item[1] is not None]
        if not work:
            for job in jobs:
                step = job.missing_film_step()
                if step is not None:
                    work = [(job, None, step)]
                    break
        if not work:
            return False
        job, pending, backfill = work[0]
        if pending is not None:
            step, snapshot = pending
            previous = job.last_frame()
            warm = None if previous is None else previous[1]
        else:
            step = int(backfill)
            warm = job.nearest_frame(step)
            snapshot = None
        self.busy_with = job.id
        try:
            if snapshot is None:
                snapshot = runlog.load_snapshot(job.run_dir / runlog.SNAPSHOTS / f"step_{step:06d}.npy")
            self._project(job, step, snapshot, warm)
        except Exception as err:  # noqa: BLE001 - a bad frame must not stop the projector
            job.frame_error = one_line(err)
            job.skip_frame(step)
            log.warning("UMAP frame of %s at step %s failed: %s", job.id, step, job.frame_error)
        finally:
            self.busy_with = None
        return True

    def _project(self, job: Job, step: int, snapshot: np.ndarray, previous: np.ndarray | None) -> None:
        from engine.metrics import knn
        from engine.projection import N_NEIGHBORS, umap_frame

        started = time.perf_counter()
        k = min(N_NEIGHBORS, max(len(snapshot) - 1, 1))
        neighbours = knn(snapshot, k) if len(snapshot) >= 5 else None
        seed = int(job.config_dict.get("seed", 0) or 0)
        coords = umap_frame(snapshot, previous=previous, knn=neighbours, seed=seed)
        job.add_frame(step, coords)
        self.frame_seconds.append(time.perf_counter() - started)
