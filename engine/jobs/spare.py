"""The warm spare: at most one child process that has already imported what a run needs.

Importing torch, transformers and the experiments takes seconds; a spare pays them while the lab is idle, so
a click on Start begins training at once. The spare runs :func:`engine.jobs.spare_entry.serve_one` and waits
for its job's argv on stdin. It writes one byte to a pipe of its own once it is warm (or its warm-up failed):
:meth:`SparePool.wait_warm` tells a script (``benchmarks/bench_figure2_preset.py``: a lecturer opens the page,
then clicks) when a click would find a warm spare.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import subprocess
import sys
import threading
import time

from engine.core import settings
from engine.core.errors import EmbedlabError, one_line
from engine.jobs.children import import_env, popen_child

log = logging.getLogger(__name__)


def spare_command(ready_fd: int) -> str:
    """The spare's ``python -c`` program: :func:`engine.cli.serve_spare` (the command line in a warm child,
    :func:`~engine.jobs.spare_entry.serve_one`), told its ready pipe."""
    return f"from engine.cli import serve_spare; serve_spare(ready_fd={int(ready_fd)})"


class SparePool:
    """At most one warm child, ``python -c 'from engine.cli import serve_spare; serve_spare(ready_fd=N)'``.

    Only prepared while the registry is idle (it would take CPU from a running job); discarded when the
    environment changed since it started (modules read some variables when imported); without one, a job
    starts ``python -m engine`` cold.
    """

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._proc: subprocess.Popen | None = None
        self._env: dict[str, str] | None = None
        self._lock = threading.Lock()
        self._ready_fd: int | None = None  # read end of the newest spare's ready pipe
        self._started = threading.Event()  # the first prepare() has run
        if not enabled:
            self._started.set()

    def prepare(self) -> None:
        """Start a spare unless one is alive (or spares are off)."""
        if not self.enabled:
            return
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            try:
                self._env = settings.child_environment()
            except EmbedlabError as err:  # a bad setting: no spare (the job that needs it fails, saying why)
                log.warning("cannot start a warm job process: %s", one_line(err))
                self._started.set()
                return
            self._close_ready()
            read_end, write_end = os.pipe()
            try:
                self._proc = popen_child(
                    [sys.executable, "-c", spare_command(write_end)], self._env, pass_fds=(write_end,)
                )
                self._ready_fd = read_end
            except OSError as err:
                log.warning("cannot start a warm job process: %s", one_line(err))
                self._proc = None
                os.close(read_end)
            finally:
                os.close(write_end)  # the child's copy is the only writer: its exit reads as "ready"
                self._started.set()

    def wait_warm(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for the first spare to be warm (its warm-up done or failed, or the
        spare gone); True when it is. False at once when spares are off."""
        deadline = time.monotonic() + timeout
        if not self._started.wait(timeout) or not self.enabled:
            return False
        while self.enabled:  # in short looks: close() must not wait for the timeout
            with self._lock:
                fd = self._ready_fd
            left = deadline - time.monotonic()
            if fd is None or left <= 0:
                return False
            try:
                readable, _, _ = select.select([fd], [], [], min(left, 0.2))
            except (OSError, ValueError):  # closed meanwhile (a later spare, or close())
                return False
            if readable:
                return True
        return False

    def _close_ready(self) -> None:
        if self._ready_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._ready_fd)
            self._ready_fd = None

    def _take(self) -> subprocess.Popen | None:
        with self._lock:
            proc, env, self._proc = self._proc, self._env, None
        if proc is None:
            return None
        try:
            now = settings.child_environment()
        except EmbedlabError:  # a setting went bad: the spare is not the job's, and the job fails saying why
            discard(proc)
            raise
        if proc.poll() is None and env is not None and import_env(env) == import_env(now):
            return proc
        discard(proc)
        return None

    def launch(self, argv: list[str]) -> subprocess.Popen:
        """A child running ``python -m engine *argv``: the spare when there is one, else a fresh one."""
        proc = self._take()
        if proc is not None:
            try:
                proc.stdin.write(json.dumps({"argv": argv, "env": settings.child_environment()}) + "\n")
                proc.stdin.close()
                return proc
            except OSError:  # the spare died meanwhile
                discard(proc)
        proc = popen_child([sys.executable, "-m", "engine", *argv], settings.child_environment())
        with contextlib.suppress(OSError):
            proc.stdin.close()
        return proc

    def close(self) -> None:
        """End the spare and start no other."""
        with self._lock:
            proc, self._proc = self._proc, None
            self.enabled = False
            self._close_ready()
        self._started.set()
        if proc is not None:
            discard(proc)


def discard(proc: subprocess.Popen) -> None:
    """End an unused spare (it holds no run: killing it loses nothing)."""
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.close()
