"""A saved encoder's folder on disk: its file names, and the repair of a replacement cut short.

A saved encoder is a folder under ``cache/encoders/`` holding the model's files, its pooler MLP
(:data:`MLP_FILE`) and the lab's metadata (:data:`META_FILE`, written last). :func:`recover` finishes a
replacement that a kill cut short between its two renames; the loader (:mod:`engine.encoders.loading`) and the
store (:mod:`engine.encoders.store`) both call it, and both import the names from here.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from engine.core import paths
from engine.core.errors import one_line

log = logging.getLogger(__name__)

META_FILE = "embedlab.json"
MLP_FILE = "pooler.safetensors"
META_FORMAT = "embedlab-encoder"


def is_complete(folder: Path) -> bool:
    """A written encoder folder: its metadata file is written last, just before the rename into place."""
    return (folder / META_FILE).is_file() and (folder / "config.json").is_file()


def recover(root: Path | None = None) -> list[str]:
    """Finish replacements cut short between their two renames; returns the names recovered.

    For every ``.old-NAME-*`` beside a missing ``NAME``: the newest complete ``.tmp-NAME-*`` is moved into
    place (the replacement the user asked for), else the old copy is put back. An ``.old-*`` whose ``NAME``
    exists is the leftover of a finished replacement and is removed.
    """
    root = root or paths.encoders_dir()
    recovered = []
    for old in sorted(root.glob(".old-*")):
        name = old.name[len(".old-") :].rsplit("-", 1)[0]
        target = root / name
        if target.exists():
            shutil.rmtree(old, ignore_errors=True)
            continue
        fresh = sorted(
            (tmp for tmp in root.glob(f".tmp-{name}-*") if is_complete(tmp)),
            key=lambda tmp: tmp.stat().st_mtime,
        )
        try:
            os.replace(fresh[-1] if fresh else old, target)
        except OSError as err:
            log.warning("cannot recover encoder %s: %s", name, one_line(err))
            continue
        log.warning(
            "encoder %s: an interrupted replacement was %s",
            name,
            "completed" if fresh else "undone (the previous copy is back)",
        )
        recovered.append(name)
        if fresh:
            shutil.rmtree(old, ignore_errors=True)
    return recovered
