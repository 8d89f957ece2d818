"""Is a run's writer still alive, and is a folder free to write?

The writer holds an exclusive ``flock`` on ``<run>/.writer.lock`` for its whole life; the kernel drops it when
the process ends, however it ends (SIGKILL included), so a free lock on a folder whose status says ``running``
means the writer is gone, and a second writer is refused while the first one lives. Where ``fcntl`` does not
exist, the status's pid and process start time are checked instead (a reused pid is not the writer).

The writer removes the lock file when it ends (finished, failed, stopped, Ctrl-C); only a process killed
outright leaves it, and its lock is free. The same lock guards a group's runner (:mod:`engine.groups.lock`),
whose lock file also names its owner (:meth:`WriterLock.record_owner`, :func:`lock_owner`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

from engine.runlog.states import RunState

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


def pid_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists now, asked without a signal: a pidfd opened and closed (Linux 5.3+),
    else /proc. A PID names whichever process holds it now: compare its start time (:func:`pid_alive`)
    where the answer must be the same process."""
    try:
        os.close(os.pidfd_open(pid))
    except ProcessLookupError:
        return False
    except (AttributeError, OSError):  # no pidfd here: /proc, else assume it runs
        proc = Path("/proc")
        return (proc / str(pid)).exists() if proc.is_dir() else True
    return True


def pid_alive(pid: object, start: object) -> bool:
    """Whether ``pid`` runs and is the process that started at ``start`` (where start times are known)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if not pid_exists(pid):
        return False
    current = process_start(pid)
    if current is None:  # no /proc: the pid is all there is to go on
        return True
    return start == current


class WriterLock:
    """The exclusive lock of one folder's writer, a ``flock`` on ``<folder>/<name>`` (a no-op where ``fcntl``
    is missing). Taking it checks that the file locked is still the one under that name: a holder removes
    the file as it lets go (:meth:`release` with ``remove``), so a lock taken on a file just removed is taken
    again on the new one."""

    def __init__(self, run_dir: Path, name: str = LOCK):
        self.path = Path(run_dir) / name
        self._fd: int | None = None

    def acquire(self, create: bool = True) -> bool:
        """Take the lock without waiting; False when another live process holds it. ``create=False``: a
        missing lock file raises FileNotFoundError (a reader that must not leave a lock file behind)."""
        if fcntl is None:
            return True
        for _ in range(8):
            flags = os.O_RDWR | (os.O_CREAT if create else 0)
            fd = os.open(self.path, flags, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            if _same_file(fd, self.path):
                self._fd = fd
                return True
            os.close(fd)  # its holder removed it as it let go: lock the file now under that name
            if not create:
                raise FileNotFoundError(self.path)
        return False

    def record_owner(self) -> None:
        """Write this process's pid and start time into the held lock file (the owner a refusal names)."""
        data = json.dumps({"pid": os.getpid(), "proc_start": process_start(os.getpid())}).encode()
        with contextlib.suppress(OSError):
            if self._fd is None:  # no flock here: the named owner is all a second process goes on
                self.path.write_bytes(data)
                return
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)

    def release(self, remove: bool = False) -> None:
        """Let go; with ``remove`` the lock file goes first (while still held: no one else holds it)."""
        if remove and fcntl is None:
            self.path.unlink(missing_ok=True)
        if self._fd is not None:
            if remove:
                with contextlib.suppress(OSError):
                    if _same_file(self._fd, self.path):
                        self.path.unlink()
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing drops the flock
            self._fd = None


def _same_file(fd: int, path: Path) -> bool:
    """Whether the open ``fd`` is the file now named ``path``."""
    try:
        named, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def lock_owner(path: Path) -> dict:
    """The owner a lock file names (``pid``, ``proc_start``); {} when it names none or cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            owner = json.loads(handle.read(4096) or "{}")
    except (OSError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}


def lock_held(folder: Path, name: str = LOCK) -> bool | None:
    """Whether another live process holds the lock ``folder/name``; None when there is no lock file (or no
    ``fcntl``): the caller then falls back on a pid."""
    probe = WriterLock(folder, name)
    if fcntl is None:
        return None
    try:
        if probe.acquire(create=False):
            probe.release()
            return False
    except FileNotFoundError:
        return None
    return True


def writer_alive(run_dir: Path, status: dict) -> bool:
    """Whether the process writing ``run_dir`` lives: its lock is held, else (no lock file) its pid checks
    out."""
    held = lock_held(Path(run_dir))
    if held is not None:
        return held
    if status.get("state") not in (
        None,
        RunState.RUNNING,
    ):  # ended: its writer removed the lock as it let go, and
        return False  # the process that wrote it may live on (a sweep, a test, the CLI that ran it)
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
    if status.get("state") != RunState.RUNNING or not writer_alive(run_dir, status):
        return False
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:  # a handle on the process first, then its identity checked: the signal goes to the checked process
        handle = os.pidfd_open(pid)
    except OSError:  # gone (or no pidfd: Linux < 5.3)
        return False
    try:
        if not pid_alive(pid, status.get("proc_start")):  # the PID now names another process
            return False
        signal.pidfd_send_signal(handle, signal.SIGTERM)
    except OSError:
        return False
    finally:
        os.close(handle)
    return True
