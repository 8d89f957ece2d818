"""Keeping a finished run small: once its UMAP film is made, the full embedding snapshots whose frames are on
disk go, but for a few evenly spaced ones (the first and the last of the film among them).

A demo run keeps 31 snapshots of 600 x 384 float32 values (:func:`engine.runlog.writer.compact`), 28 MB, and
the film's 2-D frames, 0.4 MB; three snapshots (2.8 MB) stay. The film, the replay and the downloads draw the
frames; the few full snapshots left serve the readers that need the embeddings themselves (a PCA view,
IsoScore* of the snapshots, a film made again with other settings). A snapshot whose frame is missing (its
projection failed, or was not made yet) is never removed.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from engine.runlog.reading import list_frames, list_snapshots

#: the full snapshots a finished run keeps once its film is made
KEPT_SNAPSHOTS = 3


def evenly_spaced(steps: list[int], count: int) -> list[int]:
    """At most ``count`` of ``steps``, evenly spaced, the first and the last kept (the app's film choice)."""
    if len(steps) <= count:
        return list(steps)
    keep = np.unique(np.linspace(0, len(steps) - 1, count).round().astype(int))
    return [steps[i] for i in keep]


def prune_snapshots(run_dir: Path, film_frames: int, keep: int = KEPT_SNAPSHOTS) -> int:
    """Remove the snapshots of a finished run that its film no longer needs; returns the bytes freed.

    The film's steps are ``film_frames`` evenly spaced snapshot steps (as
    :meth:`engine.jobs.film.Film.missing` chooses them). Kept: ``keep`` evenly spaced film steps that have
    a frame on disk, and every film step without a frame. Removed: every other snapshot whose step has a
    frame, or that is not a film step."""
    snapshots = list_snapshots(run_dir)
    steps = [step for step, _ in snapshots]
    film = set(evenly_spaced(steps, film_frames))
    framed = {step for step, _ in list_frames(run_dir)}
    kept = set(evenly_spaced(sorted(film & framed), keep)) | (film - framed)
    freed = 0
    for step, path in snapshots:
        if step in kept:
            continue
        with contextlib.suppress(OSError):
            size = path.stat().st_size
            path.unlink()
            freed += size
    return freed
