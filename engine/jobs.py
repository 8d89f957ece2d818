"""Background jobs: queued experiment runs executed one after another by ONE worker thread.

The page script of a web UI is rerun on every click, so runs must live outside it. A
:class:`JobRegistry` (held once per server process, e.g. by ``st.cache_resource``) owns

- a FIFO queue and one worker thread. With ``isolation="process"`` (the app's default) the worker runs
  each job in its own child process, ``python -m engine KIND --out RUN --config-json ... --events``, and
  feeds the JSON lines the child prints into the :class:`Job`: training gets its own interpreter (no GIL
  shared with the web server, charts and UMAP), and a crash or out-of-memory kill of the child is just a
  failed job. Stop = SIGTERM (the CLI ends the run after its step), SIGKILL after a grace period. A warm
  *spare* child (modules imported, waiting for its job on stdin) is kept while idle, so a click starts
  training without paying the imports. ``isolation="thread"`` runs :func:`engine.runner.run_experiment`
  in the worker thread itself (tests with experiments registered in-process). Failures of any kind
  become ``failed`` jobs with a one-line message and the worker goes on with the next job;
- a :class:`ProjectionWorker`: a low-priority thread that turns the newest embedding snapshot of each
  run into a UMAP frame (skipping older ones when behind) and writes ``frames/step_NNNNNN.csv``.

A :class:`Job` is the live, thread-safe view of one run: rows, progress, speed, snapshots and frames.
Runs already on disk (other sessions, the CLI, before a restart) are attached read-only.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
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

from engine import paths, priority, runlog
from engine.errors import ConfigError, one_line
from engine.runner import EXPERIMENTS, run_experiment

log = logging.getLogger(__name__)

ACTIVE_STATES = ("queued", "running")
GIL_SWITCH_SECONDS = 0.001  # the training thread waits at most this long for the GIL held by UI threads
FRAMES = "frames"
KEEP_SNAPSHOTS = 3
FILM_FRAMES = 40  # frames a finished run's film gets (missing ones are back-filled from snapshots on disk)
SPEED_WINDOW = 30
ISOLATIONS = ("process", "thread")
STOP_GRACE_SECONDS = 10.0  # a child that has not ended this long after SIGTERM is killed
STDERR_LINES = 40
SPARE_AFTER_IDLE_SECONDS = 3.0  # a spare starts once the worker has been idle this long (not during a page load)
LIVE_FRAME_SHARE = 0.2  # of one CPU: the UMAP projector's budget while a job trains, on small machines
SMALL_MACHINE_CPUS = 4  # up to this many CPUs, a job's child leaves one to the web server and the browser


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
        self.pid: int | None = None  # the child process running this job (process isolation)
        self.summary: dict[str, Any] | None = None
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

    def adopt_disk_rows(self) -> None:
        """After a child process ended: take the rows of ``metrics.csv`` when it holds more than were seen
        (a kill can come between writing a row and reporting it)."""
        try:
            frame = runlog.read_metrics(self.run_dir)
        except (OSError, ValueError, pd.errors.ParserError):
            return
        with self._lock:
            if len(frame) <= len(self._rows) or "step" not in frame:
                return
            frame = frame.astype(object).where(frame.notna(), None)
            self._rows = [{column: row.get(column) for column in self.columns} for row in frame.to_dict("records")]

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
    """Thread-safe registry of jobs with one FIFO worker thread and one projection thread.

    ``isolation``: ``"process"`` (each job in its own child process; the app) or ``"thread"`` (in the
    worker thread; experiments registered in-process, tests); default ``EMBEDLAB_JOB_ISOLATION``, else
    ``"process"``. ``warm``: keep a spare child with the
    modules imported while idle (process isolation; default on). ``stop_grace``: seconds a stopped child
    gets to end its step before it is killed. ``child_threads``: torch threads of a child; ``"auto"``
    chooses per kind (see :func:`default_child_threads`), ``None`` keeps torch's default.
    """

    def __init__(self, runs_root: Path | None = None, *, project: bool = True, projection_nice: int = 10,
                 isolation: str | None = None, warm: bool | None = None, stop_grace: float = STOP_GRACE_SECONDS,
                 child_threads: int | str | None = "auto"):
        isolation = isolation or os.environ.get("EMBEDLAB_JOB_ISOLATION", "").strip() or "process"
        if isolation not in ISOLATIONS:
            raise ConfigError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {isolation!r}")
        self.runs_root = Path(runs_root) if runs_root is not None else paths.runs_dir()
        self.isolation = isolation
        self.stop_grace = float(stop_grace)
        self.child_threads = child_threads
        if isolation == "thread":
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
        self._spares = SparePool(enabled=isolation == "process" and (warm is None or warm))
        self.projector = (ProjectionWorker(self, nice=projection_nice, single_thread=isolation == "process")
                          if project else None)
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
            config = EXPERIMENTS[kind].make_config(**config)
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

    def wait_idle(self, timeout: float = 60.0, *, frames: bool = False) -> bool:
        """Block until no job is queued or running and, with ``frames``, no UMAP frame is still to come (a
        finished run's film back-filling); False after ``timeout`` seconds (tests, scripts)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.active() and not (frames and any(self.projecting(job) for job in self.jobs())):
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
        self._spares.close()
        if self.projector is not None:
            self.projector.close(timeout)

    # ---------------------------------------------------------------------------------- worker

    def _next(self) -> Job | None:
        idle_since = time.monotonic()
        while True:
            with self._lock:
                while self._queue:
                    job = self._queue.popleft()
                    if job.state == "queued":
                        return job
                if self._closed:
                    return None
            if time.monotonic() - idle_since >= SPARE_AFTER_IDLE_SECONDS:
                self._spares.prepare()  # idle: have a warm child ready for the next click
            with self._lock:
                if not self._queue and not self._closed:
                    self._wake.wait(timeout=0.5)

    def _work(self) -> None:
        self._spares.prepare()  # the first spare at once: a new user's first click follows soon
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
        try:
            if self.isolation == "process":
                self._run_process(job)
            else:
                self._run_thread(job)
        finally:
            job.ended = time.time()
            if self.projector is not None:
                self.projector.notify()

    def _feed(self, job: Job, event: dict[str, Any]) -> None:
        job.on_event(event)
        if "snapshot" in event and self.projector is not None:
            self.projector.notify()

    def _run_thread(self, job: Job) -> None:
        try:
            run_experiment(job.kind, job.config, job.run_dir, job.stop_event, lambda event: self._feed(job, event))
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

    # ------------------------------------------------------------------------- child processes

    def _run_process(self, job: Job) -> None:
        """Run ``job`` in a child process and follow its event lines until it ends."""
        argv = [job.kind, "--out", str(job.run_dir), "--config-json", json.dumps(_config_dict(job.config)),
                "--events"]
        threads = default_child_threads(job.kind) if self.child_threads == "auto" else self.child_threads
        if threads:
            argv += ["--threads", str(int(threads))]
        try:
            proc = self._spares.launch(argv)
        except OSError as err:
            job.error = f"could not start the run's process: {one_line(err)}"
            job.state = job.phase = "failed"
            return
        job.pid = proc.pid
        child = ChildRun(proc, job, self.stop_grace)
        for line in proc.stdout:  # one JSON object per line, until the child closes its stdout
            event = child.event(line)
            if event is not None:
                self._feed(job, event)
        child.wait()
        state, error = child.outcome()
        job.adopt_disk_rows()
        job.error = error
        job.state = job.phase = state
        if state == "failed":
            log.warning("job %s failed: %s", job.id, error)


def default_child_threads(kind: str | None = None) -> int | None:
    """Torch threads of a job's child: on a machine of at most ``SMALL_MACHINE_CPUS`` CPUs, all but one,
    except for task-parallel experiments (``Experiment.task_parallel``: the probe), which get torch's default.

    The web server (charts every second) and the browser drawing them need about half a core; a training
    child with one OpenMP thread per core would then wait at every parallel region for a descheduled
    thread. Measured on the 2-core machine (benchmarks/bench_app_throughput.py): one thread trains faster
    than two as soon as anything else runs. A task-parallel loop does not stall that way: the probe ran at
    83 % of the CLI with two threads against 71 % with one. Larger machines keep torch's default (physical
    cores). ``EMBEDLAB_JOB_THREADS=N`` sets it for every kind (``0``: torch's default).
    """
    chosen = os.environ.get("EMBEDLAB_JOB_THREADS", "").strip()
    if chosen:
        try:
            threads = int(chosen)
        except ValueError:
            raise ConfigError(f"EMBEDLAB_JOB_THREADS must be a whole number, got {chosen!r}") from None
        return threads if threads > 0 else None
    if kind is not None and EXPERIMENTS[kind].task_parallel:
        return None
    cpus = usable_cpus()
    return max(1, cpus - 1) if cpus <= SMALL_MACHINE_CPUS else None


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask; all CPUs where that is unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ChildRun:
    """The worker's side of one child process: its stderr tail, stop enforcement, events and outcome."""

    def __init__(self, proc: subprocess.Popen, job: Job, grace: float):
        self.proc = proc
        self.job = job
        self.grace = grace
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._threads = [
            threading.Thread(target=self._drain_stderr, name=f"job-stderr-{proc.pid}", daemon=True),
            threading.Thread(target=self._enforce_stop, name=f"job-stop-{proc.pid}", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _drain_stderr(self) -> None:
        for line in self.proc.stderr:
            line = line.rstrip()
            if line:
                self.stderr.append(line)
                log.debug("job %s: %s", self.job.id, line)

    def _enforce_stop(self) -> None:
        """On stop: SIGTERM (the CLI ends the run after its step), then SIGKILL after the grace period."""
        while not self.job.stop_event.wait(0.1):
            if self.proc.poll() is not None:
                return
        if self.proc.poll() is not None:
            return
        self.job.phase = "stopping"
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(self.grace)
        except subprocess.TimeoutExpired:
            log.warning("job %s did not stop within %.0f s: killing it", self.job.id, self.grace)
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    def event(self, line: str) -> dict[str, Any] | None:
        """The runner event of one stdout line (the snapshot array read back from the run folder)."""
        try:
            event = json.loads(line)
        except ValueError:
            log.debug("job %s: not an event line: %r", self.job.id, line[:200])
            return None
        if not isinstance(event, dict):
            return None
        if "summary" in event:
            self.job.summary = event["summary"]
            return None
        if "points" in event:
            texts, labels = event["points"]
            event["points"] = (texts, labels)
        step = event.pop("snapshot_step", None)
        if step is not None:
            path = runlog.snapshot_path(self.job.run_dir, step)
            try:
                event["snapshot"] = runlog.load_snapshot(path)
            except (OSError, ValueError) as err:
                log.warning("job %s: cannot read snapshot %s: %s", self.job.id, path, err)
        return event

    def wait(self) -> None:
        self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=self.grace + 5)
        with contextlib.suppress(OSError):
            self.proc.stdout.close()
            self.proc.stderr.close()

    def error_line(self) -> str | None:
        """The child's one-line error (``error: ...`` printed by engine.cli), without the prefix."""
        for line in reversed(self.stderr):
            if line.startswith("error: "):
                return line[len("error: "):].strip()
        return self.stderr[-1].strip() if self.stderr else None

    def outcome(self) -> tuple[str, str | None]:
        """``(state, error)`` of the ended child; a run folder left ``running`` gets its real end recorded."""
        code = self.proc.returncode
        try:
            status = runlog.read_json(self.job.run_dir / runlog.STATUS)
        except (OSError, ValueError):
            status = None
        recorded = status.get("state") if status else None
        if recorded in runlog.FINAL_STATES:  # the child recorded its end (even if it was slow to exit)
            return recorded, status.get("error") if recorded == "failed" else None
        if self.job.stop_event.is_set():
            state, error = "stopped", None
        elif code is not None and code < 0:
            name = _signal_name(-code)
            why = " (most likely out of memory)" if -code == signal.SIGKILL else ""
            state, error = "failed", f"the run's process was killed by {name}{why}"
        elif code:
            state, error = "failed", self.error_line() or f"the run's process exited with code {code}"
        else:
            state, error = "failed", "the run's process ended without recording its result"
        if status is not None:
            status.update(state=state, ended=time.time(), error=error)
            with contextlib.suppress(OSError):
                runlog.write_json_atomic(self.job.run_dir / runlog.STATUS, status)
        return state, error


def _child_env() -> dict[str, str]:
    return {**os.environ, "EMBEDLAB_NO_PROGRESS": "1", "PYTHONUNBUFFERED": "1"}


# variables read when modules are imported (a spare started with other values must not be used)
IMPORT_TIME_ENV = ("EMBEDLAB_", "HF_", "TRANSFORMERS_", "TORCH", "CUDA_", "OMP_", "MKL_", "NUMBA_", "PYTHON",
                   "TOKENIZERS_")


def _import_env(env: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if key.startswith(IMPORT_TIME_ENV)}


def _popen(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        command, cwd=paths.REPO_ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", bufsize=1,
        # A process group of its own: Ctrl-C in the server's terminal must not hit the run (stop is ours to
        # send). Not a session of its own: in the server's session group, the server's drawing threads, which
        # run at a higher nice value, yield to training (engine.priority).
        process_group=0,
    )


class SparePool:
    """At most one warm child: ``python -c 'serve_one()'`` has imported torch, transformers and the
    experiments and waits for its job's argv on stdin, saving those seconds when a run starts.

    Only prepared while the registry is idle (it would take CPU from a running job); discarded when the
    environment changed since it started; without one, a job starts ``python -m engine`` cold.
    """

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._proc: subprocess.Popen | None = None
        self._env: dict[str, str] | None = None
        self._lock = threading.Lock()

    def prepare(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            self._env = _child_env()
            try:
                self._proc = _popen([sys.executable, "-c", "from engine.jobs import serve_one; serve_one()"], self._env)
            except OSError as err:
                log.warning("cannot start a warm job process: %s", one_line(err))
                self._proc = None

    def _take(self) -> subprocess.Popen | None:
        with self._lock:
            proc, env, self._proc = self._proc, self._env, None
        if proc is None:
            return None
        if proc.poll() is None and env is not None and _import_env(env) == _import_env(_child_env()):
            return proc
        _discard(proc)
        return None

    def launch(self, argv: list[str]) -> subprocess.Popen:
        """A child running ``python -m engine *argv``: the spare when there is one, else a fresh one."""
        proc = self._take()
        if proc is not None:
            try:
                proc.stdin.write(json.dumps({"argv": argv, "env": _child_env()}) + "\n")
                proc.stdin.close()
                return proc
            except OSError:  # the spare died meanwhile
                _discard(proc)
        proc = _popen([sys.executable, "-m", "engine", *argv], _child_env())
        with contextlib.suppress(OSError):
            proc.stdin.close()
        return proc

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            self.enabled = False
        if proc is not None:
            _discard(proc)


def _discard(proc: subprocess.Popen) -> None:
    """End an unused spare (it holds no run: killing it loses nothing)."""
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def preload() -> None:
    """Import what a run needs (torch, transformers, every registered experiment): a spare's warm-up."""
    import importlib

    for experiment in EXPERIMENTS.values():
        for ref in (experiment.generator, experiment.config_class, experiment.summarize):
            if ref:
                with contextlib.suppress(Exception):
                    experiment.load(ref)
    for module in ("engine.cli", "engine.encoders", "engine.metrics", "engine.data",
                   "transformers.models.bert.modeling_bert", "transformers.models.bert.tokenization_bert"):
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def warm_default_encoder() -> None:
    """Load the bundled encoder and put the demo corpus's embeddings in the embedding cache (once per cache
    folder), then hand the loaded encoder to this process's next ``load_encoder()`` of the same settings:
    the overview's one-click demo (and any run on the bundled encoder) then skips loading and encoding.
    ``EMBEDLAB_WARM_ENCODER=0`` turns it off (spares then only import)."""
    from engine.encoders import encode_cached, load_encoder
    from engine.encoders.loading import hand_over
    from engine.probe import ProbeConfig, build_problem

    encoder = load_encoder()
    build_problem(ProbeConfig(data="demo"), lambda texts: encode_cached(encoder, texts))
    hand_over(encoder)


def serve_one() -> None:
    """Entry of a spare child: preload, read its job (``{"argv": CLI argv, "env": environment}``, one JSON
    line) from stdin, run it as ``python -m engine *argv`` would, exit."""
    preload()
    try:
        if os.environ.get("EMBEDLAB_WARM_ENCODER", "1") != "0":
            warm_default_encoder()
    except Exception as err:  # noqa: BLE001 - a failed warm-up only means a colder start
        log.warning("warm-up of the bundled encoder failed: %s", one_line(err))
    line = sys.stdin.readline()
    if not line.strip():  # the registry discarded the spare (or is gone)
        return
    job = json.loads(line)
    os.environ.update(job.get("env") or {})
    from engine.cli import main

    sys.exit(main(job["argv"]))


class ProjectionWorker:
    """Low-priority thread turning each job's newest snapshot into a warm-started UMAP frame.

    CPU budget: the thread lowers its own scheduling priority (:func:`engine.priority.lower_thread_priority`,
    nice ``nice``) and numba's thread count to 1; when training produces snapshots faster than frames,
    older snapshots are skipped and the newest is projected. Nice only weighs threads of one session group
    against each other (autogroup), and a UMAP frame is seconds of CPU; so while a job trains, the
    projector also keeps to ``live_share`` of one CPU: after a live frame
    that used c CPU seconds it rests until c / live_share seconds have passed since the frame began
    (default: ``LIVE_FRAME_SHARE`` on machines of at most ``SMALL_MACHINE_CPUS`` CPUs, else no limit).
    Films of finished runs are back-filled at full speed. It pre-warms umap-learn's JIT when it starts
    (before lowering its priority).
    """

    def __init__(self, registry: JobRegistry, *, nice: int = 10, prewarm: bool = True, single_thread: bool = False,
                 live_share: float | None = None):
        self.registry = registry
        self.nice = nice
        self.live_share = _default_live_share() if live_share is None else float(live_share)
        self.single_thread = single_thread  # no training in this process: keep torch to this thread
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
        priority.lower_thread_priority(self.nice)
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
        wall, cpu = time.monotonic(), time.thread_time()
        try:
            if snapshot is None:
                snapshot = runlog.load_snapshot(runlog.snapshot_path(job.run_dir, step))
            self._project(job, step, snapshot, warm)
        except Exception as err:  # noqa: BLE001 - a bad frame must not stop the projector
            job.frame_error = one_line(err)
            job.skip_frame(step)
            log.warning("UMAP frame of %s at step %s failed: %s", job.id, step, job.frame_error)
        finally:
            self.busy_with = None
        if pending is not None and job.state == "running" and 0 < self.live_share < 1:
            used = time.thread_time() - cpu
            self._closed.wait(max(0.0, used / self.live_share - (time.monotonic() - wall)))
        return True

    def _project(self, job: Job, step: int, snapshot: np.ndarray, previous: np.ndarray | None) -> None:
        from engine.metrics import knn
        from engine.projection import N_NEIGHBORS, umap_frame

        if self.single_thread:
            _torch_single_thread()
        started = time.perf_counter()
        k = min(N_NEIGHBORS, max(len(snapshot) - 1, 1))
        neighbours = knn(snapshot, k) if len(snapshot) >= 5 else None
        seed = int(job.config_dict.get("seed", 0) or 0)
        coords = umap_frame(snapshot, previous=previous, knn=neighbours, seed=seed)
        job.add_frame(step, coords)
        self.frame_seconds.append(time.perf_counter() - started)


def _default_live_share() -> float:
    return LIVE_FRAME_SHARE if usable_cpus() <= SMALL_MACHINE_CPUS else 1.0


def _torch_single_thread() -> None:
    """No torch worker threads in the server process (they would not inherit the projector's priority)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
