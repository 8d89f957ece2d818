"""The warm spare: at most one child process that has already imported what a run needs.

Importing torch, transformers and the experiments takes seconds; a spare pays them while the lab is idle, so
a click on Start begins training at once. The spare runs :func:`engine.jobs.spare_entry.serve_one` and waits
for its job's argv on stdin.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import threading

from engine import settings
from engine.errors import one_line
from engine.jobs.children import import_env, popen_child

log = logging.getLogger(__name__)

SPARE_COMMAND = "from engine.jobs import serve_one; serve_one()"


class SparePool:
    """At most one warm child, ``python -c 'from engine.jobs import serve_one; serve_one()'``.

    Only prepared while the registry is idle (it would take CPU from a running job); discarded when the
    environment changed since it started (modules read some variables when imported); without one, a job
    starts ``python -m engine`` cold.
    """

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._proc: subprocess.Popen | None = None
        self._env: dict[str, str] | None = None
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Start a spare unless one is alive (or spares are off)."""
        if not self.enabled:
            return
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            self._env = settings.child_environment()
            try:
                self._proc = popen_child([sys.executable, "-c", SPARE_COMMAND], self._env)
            except OSError as err:
                log.warning("cannot start a warm job process: %s", one_line(err))
                self._proc = None

    def _take(self) -> subprocess.Popen | None:
        with self._lock:
            proc, env, self._proc = self._proc, self._env, None
        if proc is None:
            return None
        if proc.poll() is None and env is not None and import_env(env) == import_env(settings.child_environment()):
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
