"""Data files uploaded in the app, kept in ``cache/uploads/``: stored only when they read as a table, or (a
``.npz`` name) as an archive of embeddings and labels.

A file is written under a hidden temporary name, read with :func:`engine.data.read_table` (so a binary,
non-UTF-8, empty, too wide or too long file is refused with its one-line reason) or, for ``.npz``, checked by
:func:`engine.data.load_npz` (``numpy.load(allow_pickle=False)``: wrong shapes, NaN or infinite values,
labels that do not match the rows are refused with their one-line reason), and only then renamed into place:
the Isotropy page never offers a file that cannot be read.

Names keep their letters in any script and their extension (:func:`engine.core.paths.safe_name`); a name
already taken by a different file gets a suffix (``a-2.csv``), so an upload never replaces another one; the
same file uploaded again is kept once.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.core import paths
from engine.core.errors import DataError


def is_vectors(name: str) -> bool:
    """Whether an upload is an archive of embeddings and labels (``.npz``) rather than a table."""
    return Path(name).suffix.lower() == ".npz"


def store(name: str, content: bytes) -> Path:
    """Keep an uploaded file as ``cache/uploads/<safe name>`` (``<stem>-2<ext>``, ... when that name holds
    another file); DataError (one line) if it is not a table (or, ``.npz``, not a valid archive of
    embeddings and labels); ConfigError (one line) when the uploads folder cannot be written."""
    folder = paths.uploads_dir()
    target = paths.inside(folder, name, what="file name")
    staged = target.with_name(f".staged-{os.urandom(4).hex()}{target.suffix}")
    try:
        staged.write_bytes(content)
    except OSError as err:
        refusal = paths.not_writable(err, folder, "uploads folder")
        if refusal is None:
            raise
        raise refusal from None
    try:
        _check(staged, target.name)
        return _place(staged, target, content)
    finally:
        staged.unlink(missing_ok=True)


def _check(staged: Path, name: str) -> None:
    """Read the staged copy as the lab will read it; its errors in the words of the user's file name."""
    from engine.data import load_npz, read_table

    try:
        if is_vectors(name):
            load_npz(staged, name=name)
        else:
            read_table(staged)
    except DataError as err:
        raise DataError(str(err).replace(staged.name, name)) from None


def _place(staged: Path, target: Path, content: bytes) -> Path:
    """Move the staged file to ``target``, or to the first free ``<stem>-N<ext>``: never over another file
    (``os.link`` fails on a taken name, so two uploads at once never take the same one)."""
    for number in range(1, 10_000):
        candidate = target if number == 1 else target.with_name(f"{target.stem}-{number}{target.suffix}")
        try:
            os.link(staged, candidate)
            return candidate
        except FileExistsError:
            if _same_content(candidate, content):
                return candidate
    raise DataError(f"{target.name}: too many uploads of that name; delete some first")


def _same_content(path: Path, content: bytes) -> bool:
    try:
        return path.is_file() and path.stat().st_size == len(content) and path.read_bytes() == content
    except OSError:
        return False


def listing() -> list[str]:
    """The stored uploads, by name."""
    return sorted(p.name for p in paths.uploads_dir().glob("*") if p.is_file() and not p.name.startswith("."))


def delete(name: str) -> None:
    """Remove a stored upload (only inside ``cache/uploads``)."""
    paths.inside(paths.uploads_dir(), name, what="file name").unlink(missing_ok=True)
