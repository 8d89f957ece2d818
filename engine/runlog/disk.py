"""What the lab keeps on disk: the size of a folder (a run, an encoder) and of each part of the cache.

Sizes are the blocks a file takes on disk (what ``du`` counts), summed over a folder without following links.
A folder's size is kept with the modification times of the folder and of its sub-folders and read again only
when one of them changed (a file added, removed or renamed inside); a folder whose files still grow (a
running run) is measured with ``fresh=True``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engine.core import paths

#: the parts of the cache, by what a page calls them, and where each lives (:mod:`engine.core.paths`)
CACHE_PARTS = {
    "runs": paths.runs_dir,
    "encoders": paths.encoders_dir,
    "uploads": paths.uploads_dir,
    "embedding cache": paths.embeddings_dir,
}

_kept: dict[Path, tuple[tuple[int, ...], int]] = {}
_lock = threading.Lock()


def _entry_bytes(entry: os.DirEntry) -> int:
    found = entry.stat(follow_symlinks=False)
    blocks = getattr(found, "st_blocks", None)
    return int(blocks) * 512 if blocks is not None else int(found.st_size)


def _walk(folder: Path) -> tuple[int, tuple[int, ...]]:
    """(bytes on disk of everything under ``folder``, the modification times of it and its sub-folders)."""
    return _scan(folder, sizes=True)


def _signature(folder: Path) -> tuple[int, ...]:
    """The modification times of ``folder`` and of its sub-folders (their own entries changing)."""
    return _scan(folder, sizes=False)[1]


def _scan(folder: Path, sizes: bool) -> tuple[int, tuple[int, ...]]:
    """:func:`_walk`, the files' sizes counted only with ``sizes`` (else 0)."""
    total, times = 0, []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            times.append(current.stat().st_mtime_ns)
            with os.scandir(current) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(Path(entry.path))
                        elif sizes:
                            total += _entry_bytes(entry)
                    except OSError:
                        continue  # a file removed meanwhile, or one that cannot be looked at
        except OSError:
            continue
    return total, tuple(times)


def folder_bytes(folder: Path, *, fresh: bool = False) -> int:
    """Bytes on disk under ``folder`` (0 when it does not exist); kept until the folder's or a sub-folder's
    modification time changes. ``fresh``: measure again (a run whose files still grow)."""
    folder = Path(folder)
    if not fresh:
        with _lock:
            kept = _kept.get(folder)
        if kept is not None and kept[0] == _signature(folder):
            return kept[1]
    total, times = _walk(folder)
    with _lock:
        _kept[folder] = (times, total)
    return total


def cache_usage() -> dict[str, int]:
    """Bytes on disk of each part of the cache (:data:`CACHE_PARTS`), each sub-folder measured by
    :func:`folder_bytes` (so a listing again costs what changed)."""
    usage = {}
    for part, where in CACHE_PARTS.items():
        root = where()
        total = 0
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            total += folder_bytes(Path(entry.path))
                        else:
                            total += _entry_bytes(entry)
                    except OSError:
                        continue
        except OSError:
            pass
        usage[part] = total
    return usage


def size_text(size: int) -> str:
    """Bytes in words: ``812 B``, ``3.4 MB``, ``1.2 GB`` (powers of 1024, as ``du -h``)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"  # pragma: no cover - the loop returns at GB
