"""Is a run's writer still alive, and is a folder free to write?

The writer holds an exclusive ``flock`` on ``<run>/.writer.lock`` for its whole life; the kernel drops it when
the process ends, however it ends (SIGKILL included), so a free lock on a folder whose status says ``running``
means the writer is gone, and a second writer is refused while the first one lives. Where ``fcntl`` does not
exist, the status's pid and process start time are checked instead (a reused pid is not the writer).
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

LOCK = ".writer.lock"


def process_start(pid: int) -> str | None:
    """Start time of a process (Linux ``/proc``), so a reused pid is not mistaken for the writer."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def pid_alive(pid: object, start: object) -> bool:
    """Whether ``pid`` runs and is the process that started at ``start`` (where start times are known)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    current = process_start(pid)
    if current is None:  # no /proc: the pid is all there is to go on
        return True
    return start == current


class WriterLock:
    """The exclusive lock of one run folder's writer (a no-op where ``fcntl`` is missing)."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another live process holds it."""
        if fcntl is None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing drops the flock
            self._fd = None


def writer_alive(run_dir: Path, status: dict) -> bool:
    """Whether the process writing ``run_dir`` lives: its lock is held, else (no lock file) its pid checks
    out."""
    lock = Path(run_dir) / LOCK
    if fcntl is not None and lock.exists():
        probe = WriterLock(run_dir)
        if probe.acquire():
            probe.release()
            return False
        return True
    return pid_alive(status.get("pid"), status.get("proc_start"))


def request_stop(run_dir: Path) -> bool:
    """Ask the live writer of ``run_dir`` (another server, a CLI run) to end after its step: SIGTERM to the
    process its status names, only when that process is verifiably the writer. False when there is none."""
    from engine.runlog.files import STATUS, read_json

    try:
        status = read_json(Path(run_dir) / STATUS)
    except (OSError, ValueError):
        return False
    pid = status.get("pid")
    if status.get("state") != "running" or not writer_alive(run_dir, status):
        return False
    if not pid_alive(pid, status.get("proc_start")) or pid == os.getpid():
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return False
    return True
