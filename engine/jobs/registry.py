"""The job registry: queued experiment runs executed one after another by ONE worker thread.

The page script of a web UI is rerun on every click, so runs must live outside it: a :class:`JobRegistry`
is held once per server process (e.g. by ``st.cache_resource``). One run at a time, because a run takes the
machine's cores; a queue, because a user may queue several. Runs queued together as one group (a preset's
runs, :meth:`JobRegistry.submit` with ``group``) go side by side instead, in ``group_width`` lanes (a lane
takes the group's next run when its own ends), each child with its share of the CPUs: two one-thread SimCSE
runs on 2 cores do 1.3x the steps of one two-thread run (``engine.simcse.figure2_runs``, docs/performance.md).
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from engine import experiments, runlog
from engine.compute.lanes import plan_workers, usable_cpus
from engine.core import paths, settings
from engine.core.errors import ConfigError, EmbedlabError, one_line
from engine.jobs.children import ChildRun, child_argv, default_child_threads
from engine.jobs.job import Job
from engine.jobs.projection_worker import ProjectionWorker
from engine.jobs.spare import SparePool
from engine.runlog import events
from engine.runlog.runner import run_experiment
from engine.runlog.states import RunState

log = logging.getLogger(__name__)

ISOLATIONS = ("process", "thread")
IDLE_POLL_SECONDS = 0.02  # wait_idle's look interval: short, it only serves scripts and tests


def _agrees(job: Job, info: runlog.RunInfo) -> bool:
    """Whether an attached run already says what its folder says (state and error; its summary, once it ended
    and wrote one): then re-reading its status (:meth:`Job.refresh_from_disk`) would change nothing."""
    summary_known = job.summary is not None or job.active or not os.path.exists(job.run_dir / runlog.SUMMARY)
    return job.state == info.state and job.error == info.error and summary_known


class JobRegistry:
    """Thread-safe registry of jobs with one FIFO worker thread and one projection thread.

    ``isolation``: ``"process"`` (each job in its own child process, :mod:`engine.jobs.children`: no GIL
    shared with the web server, charts and UMAP, and a crash or out-of-memory kill is just a failed job) or
    ``"thread"`` (:func:`engine.runlog.runner.run_experiment` in the worker thread; experiments registered
    in-process, tests); default: the setting ``job_isolation``. ``warm``: keep a spare child with the
    modules imported while idle (process isolation; default on). ``stop_grace``: seconds a stopped child
    gets to end its step before it is killed (default: the setting ``stop_grace_seconds``).
    ``child_threads``: torch threads of a child; ``"auto"`` chooses per kind
    (:func:`~engine.jobs.children.default_child_threads`), ``None`` keeps torch's default.
    """

    def __init__(
        self,
        runs_root: Path | None = None,
        *,
        project: bool = True,
        projection_nice: int = 10,
        isolation: str | None = None,
        warm: bool | None = None,
        stop_grace: float | None = None,
        child_threads: int | str | None = "auto",
    ):
        isolation = isolation or settings.get("job_isolation")
        if isolation not in ISOLATIONS:
            raise ConfigError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {isolation!r}")
        self.runs_root = Path(runs_root) if runs_root is not None else paths.runs_dir()
        self.isolation = isolation
        self.stop_grace = float(settings.get("stop_grace_seconds") if stop_grace is None else stop_grace)
        self.child_threads = child_threads
        if isolation == "thread":
            # A training step releases and re-takes the GIL hundreds of times (every torch op); with Python's
            # default 5 ms switch interval, a busy UI thread (figures every second) makes each re-take wait.
            sys.setswitchinterval(min(sys.getswitchinterval(), settings.get("gil_switch_seconds")))
        self.runs_root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._jobs: dict[str, Job] = {}
        self._queue: deque[Job] = deque()
        self._closed = False
        self._current: Job | None = None
        self.children: dict[str, ChildRun] = {}  # by job id, while its process runs (engine.jobs.server_exit)
        self._spares = SparePool(enabled=isolation == "process" and (warm is None or warm))
        in_child = isolation == "process"  # runs and frames out of the server's interpreter
        self.projection_worker = (
            ProjectionWorker(self, nice=projection_nice, single_thread=in_child, in_child=in_child)
            if project
            else None
        )
        self._worker = threading.Thread(target=self._work, name="embedlab-jobs", daemon=True)
        self._worker.start()

    # ---------------------------------------------------------------------------------- public

    def submit(self, kind: str, config: Any, name: str | None = None, group: str | None = None) -> Job:
        """Queue a run of ``kind``; ``config`` is the experiment's config dataclass or a dict of its fields.
        Runs of one ``group`` (any label shared by runs queued together) may run side by side.

        Raises :class:`ConfigError` (one line) for an unknown kind or invalid settings.
        """
        experiment = experiments.require(kind)
        if isinstance(config, dict):
            config = experiment.make_config(**config)
        title = runlog.clean_name(name) if name is not None else runlog.naming.generated_name(kind, config)
        prefix = kind if name is None else runlog.naming.folder_prefix(title, kind)  # named: after it
        with self._lock:
            if self._closed:
                raise ConfigError("the job registry is shut down")
            run_dir = self.runs_root / paths.new_run_name(prefix)
            while run_dir.name in self._jobs or run_dir.exists():
                run_dir = self.runs_root / paths.new_run_name(prefix)
            job = Job(kind, config, run_dir, title)
            job.group = group
            self._jobs[job.id] = job
            self._queue.append(job)
            self._relabel()
            self._wake.notify_all()
        return job

    def rename(self, job_id: str, name: str) -> str:
        """Give a run a new name (:func:`engine.runlog.clean_name`): written into its folder's
        ``config.json`` (atomically) once the run has one, else given to its process when it starts. Returns
        the name kept; ConfigError (one line) for an empty name or an unknown run."""
        cleaned = runlog.clean_name(name)
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise ConfigError(f"no run {job_id!r} to rename")
            if (job.run_dir / runlog.CONFIG).exists():
                runlog.rename(job.run_dir, cleaned)
            job.name = cleaned
            self._relabel()
        return cleaned

    def _relabel(self) -> None:
        """Each run's :attr:`Job.label`: its name, with `` (2)``, `` (3)`` ... on the later runs of a name
        that several runs share (in the registry's order: oldest first)."""
        seen: dict[str, int] = {}
        for job in self._jobs.values():
            count = seen[job.name] = seen.get(job.name, 0) + 1
            job.label = job.name if count == 1 else f"{job.name} ({count})"

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

    def delete(self, job_id: str) -> None:
        """Delete an ended run: its folder (only inside the registry's runs folder) and its entry, so no page
        lists it again. A queued or running run, or a folder elsewhere, is a one-line ConfigError."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return
            if job.active or job.run_dir.resolve().parent != self.runs_root.resolve():
                raise ConfigError(
                    f"{job.name} is running or not in the lab's run folder: it cannot be deleted"
                )
            del self._jobs[job_id]
            self._relabel()
        shutil.rmtree(job.run_dir, ignore_errors=True)

    def attach_finished(self) -> list[Job]:
        """Add runs found on disk (finished, stopped, failed, interrupted, or written by another process);
        runs attached before get their state re-read. Returns the newly added ones."""
        added = []
        for info in runlog.list_runs(self.runs_root):
            with self._lock:
                known = self._jobs.get(info.name)
                if known is None:
                    job = Job.from_run(info)
                    self._jobs[job.id] = job
                    added.append(job)
                elif known.from_disk and not _agrees(known, info):
                    known.refresh_from_disk()
                if known is not None and info.run_name and not known.active and known.name != info.run_name:
                    known.name = info.run_name  # renamed by another server or by hand
        with self._lock:
            if added:
                self._jobs = dict(
                    sorted(self._jobs.items(), key=lambda item: item[1].started or item[1].created)
                )
            self._relabel()
        return added

    def projecting(self, job: Job) -> bool:
        """Whether UMAP frames of ``job`` are still to come (live snapshot pending or the film
        back-filling)."""
        if self.projection_worker is None or not self.projection_worker.alive:
            return False
        return job.pictures.pending_snapshot() is not None or job.missing_film_step() is not None

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
            time.sleep(IDLE_POLL_SECONDS)
        return False

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop everything and end the threads (tests; the server just exits)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        self.stop_all()
        self._worker.join(timeout)
        self._spares.close()
        if self.projection_worker is not None:
            self.projection_worker.close(timeout)

    def wait_spare_warm(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s for the first warm spare to be warm (False at once without spares)."""
        return self._spares.wait_warm(timeout)

    # ---------------------------------------------------------------------------------- worker

    def _next(self) -> Job | None:
        """The next queued job; while idle, a warm spare is prepared (not during a page load's burst)."""
        idle_since = time.monotonic()
        while True:
            with self._lock:
                while self._queue:
                    job = self._queue.popleft()
                    if job.state == RunState.QUEUED:
                        return job
                if self._closed:
                    return None
            if time.monotonic() - idle_since >= settings.get("spare_after_idle_seconds"):
                self._prepare_spare()
            with self._lock:
                if not self._queue and not self._closed:
                    self._wake.wait(timeout=0.5)

    def _work(self) -> None:
        """The job worker's loop. It never dies (issue 47: a bad setting raised in its set-up killed it and
        every later job stayed "queued"): a job that cannot start ends failed with the one-line reason."""
        self._prepare_spare()  # the first spare at once: a new user's first click follows soon
        while True:
            job = self._next()
            if job is None:
                return
            self._current = job
            try:
                if job.group is not None and self.group_width() > 1:
                    self._run_group(job)
                else:
                    self._run(job)
            except Exception as err:  # noqa: BLE001 - the worker must survive every failure
                log.exception("job %s: the worker failed", job.id)
                if job.active:
                    job.end(RunState.FAILED, f"the run could not start: {one_line(err)}")
            finally:
                self._current = None

    def _prepare_spare(self) -> None:
        """A warm spare (best effort: without one a job starts a fresh child)."""
        try:
            self._spares.prepare()
        except Exception as err:  # noqa: BLE001 - the worker must survive every failure
            log.warning("cannot prepare a warm job process: %s", one_line(err))

    def group_width(self) -> int:
        """How many runs of one group go side by side: the setting ``figure2_workers`` (0: one per CPU),
        1 with thread isolation (one interpreter)."""
        if self.isolation != "process":
            return 1
        return settings.get("figure2_workers") or usable_cpus()

    def _take_sibling(self, group: str) -> Job | None:
        """The next queued run of ``group``, taken off the queue (None when there is none)."""
        with self._lock:
            for other in self._queue:
                if other.group == group and other.state == RunState.QUEUED:
                    self._queue.remove(other)
                    return other
        return None

    def _run_group(self, first: Job) -> None:
        """``first`` and the queued runs of its group in lanes (:func:`engine.compute.lanes.plan_workers`:
        ``group_width`` at most, one per run), each child with its share of the CPUs: a lane takes the group's
        next run as soon as its own ends. Returns when every lane is done."""
        with self._lock:
            runs = 1 + sum(
                other.group == first.group and other.state == RunState.QUEUED for other in self._queue
            )
        width, threads = plan_workers(runs, self.group_width(), usable_cpus())

        def lane(job: Job | None) -> None:
            while job is not None:
                self._run(job, threads)
                job = self._take_sibling(first.group)

        lanes = [
            threading.Thread(
                target=lane,
                args=(first if index == 0 else self._take_sibling(first.group),),
                name=f"embedlab-lane-{index}",
                daemon=True,
            )
            for index in range(width)
        ]
        for worker in lanes:
            worker.start()
        for worker in lanes:
            worker.join()

    def _run(self, job: Job, threads: int | None = None) -> None:
        if not job.begin():
            return
        try:
            if self.isolation == "process":
                self._run_process(job, threads)
            else:
                self._run_thread(job)
        except Exception as err:  # noqa: BLE001 - the worker must survive every failure
            if isinstance(err, EmbedlabError):  # a user's error (a bad setting): its line, no traceback
                log.warning("job %s could not start: %s", job.id, one_line(err))
            else:
                log.exception("job %s: the worker failed", job.id)
            job.end(
                RunState.FAILED,
                f"the run could not start: {one_line(err)}" if job.pid is None else one_line(err),
            )
        finally:
            if self.projection_worker is not None:
                self.projection_worker.notify()

    def _feed(self, job: Job, event: events.Event | events.WireEvent) -> None:
        if job.on_event(event) and self.projection_worker is not None:
            self.projection_worker.notify()

    def _run_thread(self, job: Job) -> None:
        try:
            summary = run_experiment(
                job.kind,
                job.config,
                job.run_dir,
                job.stop_event,
                lambda event: self._feed(job, event),
                name=job.name,
            )
        except BaseException as err:  # noqa: BLE001 - the worker must survive every failure
            interrupted = isinstance(err, KeyboardInterrupt)
            job.end(
                RunState.STOPPED if interrupted else RunState.FAILED, None if interrupted else one_line(err)
            )
            if not interrupted:
                log.warning("job %s failed: %s", job.id, job.error)
            return
        job.summary = summary
        job.end(RunState.STOPPED if job.stop_event.is_set() else RunState.FINISHED)

    def _run_process(self, job: Job, threads: int | None = None) -> None:
        """Run ``job`` in a child process (``threads`` torch threads: a side-by-side share; else the
        registry's choice) and follow its event lines until it ends."""
        if threads is None:
            threads = default_child_threads(job.kind) if self.child_threads == "auto" else self.child_threads
        argv = child_argv(job.kind, job.config_dict, job.run_dir, threads, job.name)
        try:
            proc = self._spares.launch(argv)
        except OSError as err:
            job.end(RunState.FAILED, f"could not start the run's process: {one_line(err)}")
            return
        job.pid = proc.pid
        child = self.children[job.id] = ChildRun(proc, job, self.stop_grace)
        child.follow(lambda event: self._feed(job, event))
        state, error = child.outcome()
        self.children.pop(job.id, None)
        job.end(state, error)
        if state == RunState.FAILED:
            log.warning("job %s failed: %s", job.id, error)
