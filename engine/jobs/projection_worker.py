"""The projection worker: one thread that turns embedding snapshots into warm-started UMAP frames, made in a
low-priority child process in the app (:mod:`engine.jobs.frame_process`).

Live frames first (the newest snapshot of a running job; older unframed ones are skipped when it falls
behind), then the films of finished runs, back-filled from the snapshots on disk. Frames go to the run
folder through :mod:`engine.runlog` (:class:`engine.jobs.film.Film`).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import TYPE_CHECKING, Protocol

import numpy as np

from engine import runlog
from engine.compute import priority
from engine.compute.lanes import usable_cpus
from engine.core import settings
from engine.core.errors import one_line
from engine.jobs.frame_process import FrameProcess, make_frame, warm_up
from engine.runlog.states import RunState

if TYPE_CHECKING:
    from engine.jobs.job import Job


class JobSource(Protocol):
    """Where the projection worker finds its work: the job registry (:class:`engine.jobs.JobRegistry`)."""

    def jobs(self) -> list[Job]: ...


log = logging.getLogger(__name__)


def default_live_share() -> float:
    """The projection worker's CPU budget while a job trains: ``live_frame_share`` of one CPU on small
    machines."""
    return settings.get("live_frame_share") if usable_cpus() <= settings.get("small_machine_cpus") else 1.0


def rest_seconds(cpu_used: float, elapsed: float, share: float) -> float:
    """How long to rest after a frame that used ``cpu_used`` CPU seconds over ``elapsed`` wall seconds so that
    the projection worker keeps to ``share`` of one CPU (0 when the share is not a limit)."""
    if not 0 < share < 1:
        return 0.0
    return max(0.0, cpu_used / share - elapsed)


class ProjectionWorker:
    """Low-priority thread turning each job's newest snapshot into a warm-started UMAP frame.

    ``in_child`` (the app's registry, process isolation): the frames and umap-learn's warm-up are made in a
    child process at nice ``nice`` (:class:`engine.jobs.frame_process.FrameProcess`); this thread only picks
    the work and files the frames, so the numba kernels never hold the server's GIL. Else (tests, one
    interpreter) the thread makes them itself, its own priority lowered first and numba's thread count 1.
    Nice only weighs a session group's threads against each other (autogroup), and a UMAP frame is seconds
    of CPU; so while a job trains, the projection worker also keeps to ``live_share`` of one CPU
    (:func:`rest_seconds`; default :func:`default_live_share`). Films of finished runs are back-filled at full
    speed. It pre-warms umap-learn's JIT when it starts, at the low priority: at app start the warm spare's
    imports and the first page run beside it on few cores, and a first click waits on the spare, not on the
    film (docs/performance.md, "The cold first click"). Waiting for the warm spare before the warm-up was
    measured earlier: the first curves came no sooner, the film 4 s later.
    """

    def __init__(
        self,
        registry: JobSource,
        *,
        nice: int = 10,
        prewarm: bool = True,
        single_thread: bool = False,
        live_share: float | None = None,
        in_child: bool = False,
    ):
        self.registry = registry
        self._child = FrameProcess(nice) if in_child else None
        self.nice = nice
        self.live_share = default_live_share() if live_share is None else float(live_share)
        self.single_thread = single_thread  # no training in this process: keep torch to this thread
        if single_thread:  # now, not from the thread at some later frame: other code here sees one setting
            _torch_single_thread()
        self._prewarm = prewarm
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="embedlab-umap", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """A snapshot arrived or a run ended: look for work now."""
        self._wake.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._closed.is_set()

    def close(self, timeout: float = 5.0) -> None:
        self._closed.set()
        self._wake.set()
        if self._child is not None:
            self._child.close(timeout)
        self._thread.join(timeout)

    def _lower_priority(self) -> None:
        priority.lower_thread_priority(self.nice)
        try:
            import numba

            numba.set_num_threads(1)
        except Exception:  # noqa: BLE001 - numba missing or no threading layer: nothing to limit
            pass

    def _loop(self) -> None:
        # lowered first: the warm-up compiles numba's kernels, ~10 s of a core (2026-12-07), at the server's
        # start, when the warm spare's imports and the first page need the CPU for a first click
        if self._child is None:
            self._lower_priority()
        if self._prewarm:
            try:
                self._warm_up()
            except Exception as err:  # noqa: BLE001 - a failed warm-up only costs time later
                if not self._closed.is_set():
                    log.warning("UMAP warm-up failed: %s", one_line(err))
        while not self._closed.is_set():
            self._wake.wait(timeout=0.5)
            self._wake.clear()
            while not self._closed.is_set() and self._project_one():
                pass

    def _next_task(self) -> tuple[Job, int, np.ndarray | None, np.ndarray | None] | None:
        """``(job, step, snapshot or None to read from disk, warm start)``: the newest snapshot of a running
        job first, else the first missing frame of a finished run's film; None when nothing is pending."""
        jobs = sorted(self.registry.jobs(), key=lambda job: job.state != RunState.RUNNING)
        for job in jobs:
            pending = job.pictures.pending_snapshot()
            if pending is not None:
                previous = job.pictures.last_frame(job.from_disk)
                return job, pending[0], pending[1], None if previous is None else previous[1]
        for job in jobs:
            step = job.missing_film_step()
            if step is not None:
                return job, step, None, job.pictures.film.nearest(step)
            job.compact()  # its film is made: the snapshots it no longer needs go (engine.runlog.compaction)
        return None

    def _project_one(self) -> bool:
        """Project one snapshot; False when nothing is pending."""
        task = self._next_task()
        if task is None:
            return False
        job, step, snapshot, warm = task
        live = snapshot is not None
        wall, cpu = time.monotonic(), 0.0
        try:
            if snapshot is None:
                snapshot = runlog.load_snapshot(runlog.snapshot_path(job.run_dir, step))
            frame, cpu = self._project(job, snapshot, warm)
            job.pictures.film.add(step, frame)
        except Exception as err:  # noqa: BLE001 - a bad frame must not stop the projection worker
            if self._closed.is_set():
                return False  # closed while the frame was made: the child was killed, not the frame
            job.pictures.film.skip(step, one_line(err))
            log.warning("UMAP frame of %s at step %s failed: %s", job.id, step, job.pictures.film.error)
        if live and job.state == RunState.RUNNING:
            self._rest(rest_seconds(cpu, time.monotonic() - wall, self.live_share))
        return True

    def _rest(self, seconds: float) -> None:
        """Wait ``seconds`` (a live frame's CPU budget), or until closed."""
        if seconds > 0:
            self._closed.wait(seconds)

    def _warm_up(self) -> None:
        if self._child is not None:
            self._child.warm_up()
        else:
            warm_up()

    def _project(
        self, job: Job, snapshot: np.ndarray, previous: np.ndarray | None
    ) -> tuple[np.ndarray, float]:
        """``(frame, CPU seconds it took)``, made in the child or in this thread."""
        k = min(settings.get("umap_neighbors"), max(len(snapshot) - 1, 1))
        seed = int(job.config_dict.get("seed", 0) or 0)
        if self._child is not None:
            return self._child.frame(snapshot, previous, k, seed)
        cpu = time.thread_time()
        frame = make_frame(snapshot, previous, k, seed)
        return frame, time.thread_time() - cpu


def _torch_single_thread() -> None:
    """No torch worker threads in the server process (they would not inherit the projection worker's
    priority)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
