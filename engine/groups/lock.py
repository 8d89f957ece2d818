"""A group has one runner: whatever runs its members (a sweep, ``--seeds``, ``claims``, a Ray driver) holds
``<group>/.runner.lock`` while it does.

The lock is the run folder's writer lock (:class:`engine.runlog.liveness.WriterLock`: a ``flock`` the
kernel drops when the process ends, however it ends), and its file names the owner's pid and process
start time. A second runner is refused with one line naming that pid; a member left ``running`` counts as
left over only while no live process holds the lock (:func:`runner_alive`). The lock is re-entrant within
one process (a sweep takes it before it makes the group, :func:`engine.groups.run_group` again inside).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from engine.groups.format import GroupError
from engine.runlog import liveness
from engine.runlog.liveness import WriterLock, lock_held, lock_owner, pid_alive

RUNNER_LOCK = ".runner.lock"
TRIES = 40  # a reader probing the lock holds it for microseconds: retry a moment before refusing

_held: dict[Path, list] = {}  # this process's group locks: folder -> [lock, depth]
_guard = threading.Lock()


def _key(folder: Path) -> Path:
    return Path(folder).expanduser().resolve()


def owner(folder: Path) -> dict:
    """The runner the lock file names (``pid``, ``proc_start``); {} when none is named."""
    return lock_owner(Path(folder) / RUNNER_LOCK)


def runner_alive(folder: Path) -> bool:
    """Whether another live process runs the group in ``folder`` (this process's own hold is not one)."""
    with _guard:
        if _key(folder) in _held:
            return False
    held = lock_held(Path(folder), RUNNER_LOCK)
    return _owner_alive(folder) if held is None else held


def _owner_alive(folder: Path) -> bool:
    """No lock file, or no ``flock`` on this system: the pid and start time the lock file names decide."""
    named = owner(folder)
    return named.get("pid") != os.getpid() and pid_alive(named.get("pid"), named.get("proc_start"))


def refusal(folder: Path) -> GroupError:
    """The one line for a second runner."""
    pid = owner(folder).get("pid")
    who = f"another process (pid {pid})" if isinstance(pid, int) else "another process"
    return GroupError(
        f"group {folder} is being run by {who}; wait for it to end or stop it, then run this again"
    )


@contextlib.contextmanager
def holding(folder: Path) -> Iterator[None]:
    """Hold the runner lock of the group in ``folder`` (made if missing) for the ``with`` block; a group run
    by another live process is :func:`refusal`'s GroupError. Re-entrant in one process."""
    key = _key(folder)
    with _guard:
        if key in _held:
            _held[key][1] += 1
            taken = None
        else:
            taken = _take(key)
            _held[key] = [taken, 1]
    try:
        yield
    finally:
        with _guard:
            _held[key][1] -= 1
            if _held[key][1] == 0:
                lock = _held.pop(key)[0]
                lock.release(remove=True)


def _take(key: Path) -> WriterLock:
    try:
        key.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise GroupError(f"group folder {key}: {err.strerror or err}") from None
    if liveness.fcntl is None and _owner_alive(key):
        raise refusal(key)
    lock = WriterLock(key, RUNNER_LOCK)
    try:
        taken = any(lock.acquire() or time.sleep(0.025) for _ in range(TRIES))
    except OSError as err:
        raise GroupError(f"group folder {key}: {err.strerror or err}") from None
    if not taken:
        raise refusal(key)
    lock.record_owner()
    return lock
