"""A file rewritten whole or not at all: a temporary file beside it, fsync, then one rename over it.

``Path.write_text`` truncates the file first and writes after: a full disk, a kill or a crash in between
leaves it cut (issue 47: ``python -m engine results`` with 60 KB free cut a 383 KB document mid-line and lost
1,617 lines of prose). Here the old file stays until the new one is on disk in full; a rename within one
folder is atomic. The bytes are written as given (no newline translation: a caller keeps a file's line
endings), and the file keeps its permission bits (a new one gets the umask's, as ``open`` gives: a
temporary file's own 0600 made a shared run folder unreadable to a group).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

#: permission bits of a new file before the umask (what ``open(path, "w")`` asks for)
NEW_FILE_MODE = 0o666


def umask() -> int:
    """This process's umask, read without setting it (``os.umask`` sets it, a race with other threads);
    022 where ``/proc`` does not say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data``, whole or not at all; an OSError leaves the old file as it was and no
    temporary file behind. A symbolic link is replaced, never written through (a run file linked to a
    user's file must not change that file)."""
    target = Path(path)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = NEW_FILE_MODE & ~umask()
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def write_text_atomic(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """:func:`write_bytes_atomic` of ``text`` encoded, its newlines as they are in ``text``."""
    write_bytes_atomic(path, text.encode(encoding))


def _sync_folder(folder: Path) -> None:
    """The rename on disk too (best effort: some file systems refuse to open or sync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def line_ending(text: str) -> str:
    """``"\\r\\n"`` when every line of ``text`` ends so, else ``"\\n"``."""
    return "\r\n" if "\r\n" in text and text.count("\r\n") == text.count("\n") else "\n"
