"""Child processes of the job worker: how one is started, how many threads it gets, and the worker's side
of it while it runs (its stdout events, its stderr tail, stop enforcement and its outcome).

A child is ``python -m engine KIND --out RUN --config-json ... --events``. Its stdout carries only liveness
(:mod:`engine.runlog.events` lines: progress, a tick per row on disk, the summary at the end); the rows
themselves are read from the run folder (:class:`engine.jobs.job.Job`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine import runlog
from engine.compute.lanes import usable_cpus
from engine.core import paths, settings
from engine.experiments import EXPERIMENTS
from engine.runlog import events
from engine.runlog.states import FINAL_STATES, RunState

if TYPE_CHECKING:
    from engine.jobs.job import Job

log = logging.getLogger(__name__)

# variables read when modules are imported (a spare started with other values must not be used)
IMPORT_TIME_ENV = (
    settings.ENV_PREFIX,
    "HF_",
    "TRANSFORMERS_",
    "TORCH",
    "CUDA_",
    "OMP_",
    "MKL_",
    "NUMBA_",
    "PYTHON",
    "TOKENIZERS_",
)


def import_env(env: dict[str, str]) -> dict[str, str]:
    """The variables of ``env`` that modules read when they are imported."""
    return {key: value for key, value in env.items() if key.startswith(IMPORT_TIME_ENV)}


def popen_child(command: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
    """Start a child with piped stdin/stdout/stderr (text, line-buffered) in the repository root; ``pass_fds``
    stay open in the child."""
    return subprocess.Popen(
        command,
        cwd=paths.REPO_ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        bufsize=1,
        pass_fds=pass_fds,
        # A process group of its own: Ctrl-C in the server's terminal must not hit the run (stop is ours to
        # send). Not a session of its own: in the server's session group, the server's drawing threads, which
        # run at a higher nice value, yield to training (engine.compute.priority).
        process_group=0,
    )


def child_argv(
    kind: str, config: dict[str, Any], run_dir: object, threads: int | None, name: str | None = None
) -> list[str]:
    """The ``python -m engine`` arguments of a job's child (``name``: the run's name, ``--name``)."""
    argv = [kind, "--out", str(run_dir), "--config-json", json.dumps(config), "--events"]
    if name is not None:
        argv += ["--name", name]
    if threads:
        argv += ["--threads", str(int(threads))]
    return argv


def default_child_threads(kind: str | None = None) -> int | None:
    """Torch threads of a job's child: on a machine of at most ``small_machine_cpus`` CPUs, all but one,
    except for task-parallel experiments (``Experiment.task_parallel``: the probe), which get torch's default.

    The web server (charts every second) and the browser drawing them need part of a core; a training child
    with one OpenMP thread per core would then wait at every parallel region for a descheduled thread, so a
    child leaves a core free. A task-parallel loop does not stall that way and keeps every core.
    ``benchmarks/bench_app_throughput.py`` measures both choices against the CLI (figures in
    docs/performance.md). Larger machines keep torch's default (physical cores). The setting
    ``job_threads`` (``EMBEDLAB_JOB_THREADS=N``) sets it for every kind (``0``: torch's default).
    """
    chosen = settings.get("job_threads")
    if chosen is not None:
        return chosen if chosen > 0 else None
    if kind is not None and EXPERIMENTS[kind].task_parallel:
        return None
    cpus = usable_cpus()
    return max(1, cpus - 1) if cpus <= settings.get("small_machine_cpus") else None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ChildRun:
    """The worker's side of one child process: its events, stderr tail, stop enforcement and outcome."""

    def __init__(self, proc: subprocess.Popen, job: Job, grace: float):
        self.proc = proc
        self.job = job
        self.grace = grace
        self.stderr: deque[str] = deque(maxlen=settings.get("stderr_lines"))
        self._threads = [
            threading.Thread(target=self._drain_stderr, name=f"job-stderr-{proc.pid}", daemon=True),
            threading.Thread(target=self._enforce_stop, name=f"job-stop-{proc.pid}", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def follow(self, on_event: Callable[[events.WireEvent], None]) -> None:
        """Pass on each event line of the child's stdout until it closes it, then wait for the child.

        Should passing an event on fail, the child is killed: a run nobody follows must not go on.
        """
        try:
            for line in self.proc.stdout:
                event = events.from_line(line)
                if event is None:
                    log.debug("job %s: not an event line: %r", self.job.id, line[:200])
                else:
                    on_event(event)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            raise
        finally:
            self._wait()

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

    def _wait(self) -> None:
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
                return line[len("error: ") :].strip()
        return self.stderr[-1].strip() if self.stderr else None

    def outcome(self) -> tuple[RunState, str | None]:
        """``(state, error)`` of the ended child; a run folder left ``running`` gets its real end recorded."""
        try:
            status = runlog.read_json(self.job.run_dir / runlog.STATUS)
        except (OSError, ValueError):
            status = None
        recorded = status.get("state") if status else None
        if recorded in FINAL_STATES:  # the child recorded its end (even if it was slow to exit)
            return RunState(recorded), status.get("error") if recorded == RunState.FAILED else None
        state, error = self._unrecorded_outcome()
        if status is not None:
            status.update(state=state, ended=time.time(), error=error)
            with contextlib.suppress(OSError):
                runlog.write_json_atomic(self.job.run_dir / runlog.STATUS, status)
        return state, error

    def _unrecorded_outcome(self) -> tuple[RunState, str | None]:
        """Why a child ended without recording it: stopped by us, killed by a signal, or an error exit."""
        code = self.proc.returncode
        if self.job.stop_event.is_set():
            return RunState.STOPPED, None
        if code is not None and code < 0:
            why = " (most likely out of memory)" if -code == signal.SIGKILL else ""
            return RunState.FAILED, f"the run's process was killed by {_signal_name(-code)}{why}"
        if code:
            return RunState.FAILED, self.error_line() or f"the run's process exited with code {code}"
        return RunState.FAILED, "the run's process ended without recording its result"
