"""Open only regular files: a named pipe, a device or a socket where a file is expected never blocks a reader.

``open()`` on a named pipe (FIFO) waits until some process opens its other end, which may be never: a FIFO
named like a data file or a run's ``metrics.csv`` would hang the CLI or every page. Here a path is opened
with ``O_NONBLOCK`` (which returns at once whatever the path is), its kind checked on the open descriptor
(no window between a check and the open), and only a regular file is handed back, in blocking mode again.
Anything else is :class:`NotRegularFile`, one line naming the path and what it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from engine.core.errors import DataError

_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(DataError, OSError):
    """A path that is not a regular file (a FIFO, a device, a socket, a folder): one line that names it.

    Both a :class:`~engine.core.errors.DataError` (a user's data file: one line, exit 2) and an ``OSError`` (a
    reader that skips unreadable files skips it too)."""

    def __init__(self, message: str):
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


def kind_of(mode: int) -> str:
    """``a named pipe``, ``a socket``, ... for a ``st_mode`` that is not a regular file's."""
    return next((words for test, words in _KINDS if test(mode)), "not a file")


def refusal(path: str | os.PathLike, mode: int, label: str | None = None) -> NotRegularFile:
    return NotRegularFile(f"{label or Path(path).name}: not a regular file ({kind_of(mode)})")


def open_regular(path: str | os.PathLike, label: str | None = None) -> BinaryIO:
    """``open(path, "rb")`` for a regular file only; :class:`NotRegularFile` for anything else (never
    blocking), ``OSError`` (``FileNotFoundError``, ``PermissionError``) as ``open`` raises it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise refusal(path, mode, label)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, label: str | None = None) -> bytes:
    """The bytes of a regular file (see :func:`open_regular`)."""
    with open_regular(path, label) as handle:
        return handle.read()


def check_regular(path: str | os.PathLike, label: str | None = None, hint: str = "") -> None:
    """Raise :class:`NotRegularFile` when ``path`` exists and is not a regular file (follows links);
    ``hint`` ends its line (what to give instead)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        err = refusal(path, mode, label)
        raise NotRegularFile(f"{err}; {hint}") if hint else err
