"""Data files uploaded in the app, kept in ``cache/uploads/``: stored only when they read as a table, or (a
``.npz`` name) as an archive of embeddings and labels.

A file is written under a hidden temporary name, read with :func:`engine.data.read_table` (so a binary,
non-UTF-8, empty, too wide or too long file is refused with its one-line reason) or, for ``.npz``, checked by
:func:`engine.data.load_npz` (``numpy.load(allow_pickle=False)``: wrong shapes, NaN or infinite values,
labels that do not match the rows are refused with their one-line reason), and only then renamed into place:
the Isotropy page never offers a file that cannot be read.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine import paths
from engine.errors import DataError


def is_vectors(name: str) -> bool:
    """Whether an upload is an archive of embeddings and labels (``.npz``) rather than a table."""
    return Path(name).suffix.lower() == ".npz"


def store(name: str, content: bytes) -> Path:
    """Keep an uploaded file as ``cache/uploads/<safe name>``; DataError (one line) if it is not a table (or,
    ``.npz``, not a valid archive of embeddings and labels)."""
    from engine.data import load_npz, read_table

    target = paths.inside(paths.uploads_dir(), name, what="file name")
    staged = target.with_name(f".staged-{os.urandom(4).hex()}{target.suffix}")
    staged.write_bytes(content)
    try:
        try:
            if is_vectors(target.name):
                load_npz(staged, name=target.name)
            else:
                read_table(staged)
        except DataError as err:  # in the words of the file the user gave, not of the staging copy
            raise DataError(str(err).replace(staged.name, target.name)) from None
        os.replace(staged, target)
    finally:
        staged.unlink(missing_ok=True)
    return target


def listing() -> list[str]:
    """The stored uploads, by name."""
    return sorted(p.name for p in paths.uploads_dir().glob("*") if p.is_file() and not p.name.startswith("."))


def delete(name: str) -> None:
    """Remove a stored upload (only inside ``cache/uploads``)."""
    paths.inside(paths.uploads_dir(), name, what="file name").unlink(missing_ok=True)
