"""Replacing a run folder whole: a forced rerun is started aside and swapped in at once.

:func:`exchange` swaps two folders in one step where the system can (Linux ``renameat2`` with
``RENAME_EXCHANGE``): a reader of the run folder sees the old run, then the new one, and a kill at any moment
leaves one of them whole under the run's name (the other under a hidden ``.<name>.aside-*`` name, removed by
the next writer of that folder, :func:`sweep_aside`). Elsewhere it falls back to three renames, during which
the name briefly holds nothing (still never a mix of two runs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
from pathlib import Path

from engine.runlog.files import RUN_ENTRIES
from engine.runlog.liveness import WriterLock

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds any file of a run."""
    return any(os.path.lexists(Path(folder) / name) for name in RUN_ENTRIES)


def _renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return libc.renameat2
    except (OSError, AttributeError):
        return None


def exchange(first: Path, second: Path) -> None:
    """Swap the folders ``first`` and ``second`` (siblings): atomically where ``renameat2`` exists."""
    rename = _renameat2()
    if rename is not None:
        done = rename(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
        if done == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(code, os.strerror(code), str(second))
    parked = Path(second).with_name(f".{Path(second).name}.aside-{os.urandom(4).hex()}")
    os.rename(second, parked)
    os.rename(first, second)
    os.rename(parked, first)


def remove_tree(path: Path) -> None:
    """Remove a folder set aside (best effort: what is left is swept by :func:`sweep_aside`)."""
    shutil.rmtree(path, ignore_errors=True)


def sweep_aside(run_dir: Path) -> None:
    """Remove the folders a killed writer of ``run_dir`` left aside (none is in use: its lock is free)."""
    real = Path(run_dir).resolve()
    try:
        siblings = list(real.parent.glob(f".{real.name}.aside-*"))
    except OSError:
        return
    for folder in siblings:
        if folder.is_symlink() or not folder.is_dir():
            continue
        probe = WriterLock(folder)
        try:
            free = probe.acquire()
        except OSError:
            continue
        probe.release()
        if free:
            remove_tree(folder)
