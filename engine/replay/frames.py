"""A run's UMAP film for a replay: the app's frames where they exist, the missing ones made from the
snapshots.

The film has at most ``film_frames`` (a setting) frames at evenly spaced snapshot steps, chosen as the app
chooses them (:meth:`engine.jobs.film.Film.missing`), so the frames the app made are reused and those made
here are written to ``frames/`` (:func:`engine.runlog.save_frame`) for the app to reuse. A missing frame is
made as the app's projection worker makes it (:mod:`engine.jobs.projection_worker`): exact k-NN, UMAP
warm-started from the nearest earlier frame, the run's seed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import runlog
from engine.core import settings
from engine.core.errors import DataError, one_line
from engine.replay.source import RunData
from engine.runlog.compaction import evenly_spaced  # the app's film choice


@dataclass
class FilmFrames:
    """The frames of a film: ``coords[i]`` is the (n, 2) layout at ``steps[i]``."""

    steps: list[int]
    coords: np.ndarray  # (frames, n, 2) float32
    made: int = 0  # frames computed from snapshots by this replay
    notes: list[str] = field(default_factory=list)

    @property
    def n_points(self) -> int:
        return int(self.coords.shape[1])


def frame_of(snapshot: np.ndarray, previous: np.ndarray | None, seed: int) -> np.ndarray:
    """One UMAP frame of a snapshot, as the app's projection worker makes it (warm-started from
    ``previous``)."""
    from engine.charts.projection_frames import umap_frame
    from engine.metrics import knn

    k = min(settings.get("umap_neighbors"), max(len(snapshot) - 1, 1))
    neighbours = knn(snapshot, k) if len(snapshot) >= 5 else None
    return umap_frame(snapshot, previous=previous, knn=neighbours, seed=seed)


def film(
    run: RunData,
    max_frames: int | None = None,
    *,
    compute: bool = True,
    save: bool = True,
    progress: bool = True,
    report: Callable[[int, int], None] | None = None,
) -> FilmFrames | None:
    """The film of ``run``: None when it kept neither snapshots nor frames.

    ``compute``: make the frames that are missing from the snapshots (else the film has the frames made so
    far); ``save``: write the frames made into the run folder; ``progress``: a bar on stderr; ``report(made,
    to_make)`` after each frame made (the app's progress bar). A damaged snapshot is a DataError naming it; a
    damaged frame is made again from its snapshot.
    """
    max_frames = int(max_frames or settings.get("film_frames"))
    snapshots = dict(run.snapshots)
    framed = dict(run.frames)
    steps = evenly_spaced(sorted(set(snapshots) | set(framed)), max_frames)  # a compacted run: frames
    if not steps:
        return None
    coords: dict[int, np.ndarray] = {}
    notes: list[str] = []
    for step in steps:
        if step in framed:
            frame = _load_frame(framed[step], run, notes)
            if frame is not None:
                coords[step] = frame
    todo = [step for step in steps if step not in coords and step in snapshots]
    made = 0
    if todo and compute:
        made = _make(run, todo, snapshots, coords, save=save, progress=progress, report=report)
    elif todo:
        notes.append(
            f"{len(todo)} of the film's {len(steps)} frames are not made yet; the film shows the "
            f"{len(coords)} made so far"
        )
    return _assemble(run, coords, made, notes)


def frames_to_make(snapshots: list[int], framed: list[int], max_frames: int | None = None) -> int:
    """How many of the film's frames :func:`film` would make: film steps (of ``snapshots`` and ``framed``
    steps) with a snapshot and no frame on disk yet."""
    count = int(max_frames or settings.get("film_frames"))
    steps = evenly_spaced(sorted(set(snapshots) | set(framed)), count)
    return len(set(steps) & set(snapshots) - set(framed))


def _load_frame(path: Path, run: RunData, notes: list[str]) -> np.ndarray | None:
    try:
        frame = runlog.load_frame(path)
    except (OSError, ValueError, UnicodeDecodeError) as err:
        notes.append(
            f"{run.path.name}/frames/{path.name} is damaged ({one_line(err)}); made again from its snapshot"
        )
        run.warnings.append(notes[-1])
        return None
    if frame.ndim != 2 or not np.isfinite(frame).all():
        notes.append(
            f"{run.path.name}/frames/{path.name} is damaged (not finite); made again from its snapshot"
        )
        run.warnings.append(notes[-1])
        return None
    return frame


def _seed(run: RunData) -> int:
    seed = run.config.get("seed", 0)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else 0


def _make(
    run: RunData,
    todo: list[int],
    snapshots: dict[int, Path],
    coords: dict[int, np.ndarray],
    *,
    save: bool,
    progress: bool,
    report: Callable[[int, int], None] | None = None,
) -> int:
    """Make the frames of ``todo`` (ascending) into ``coords``, each warm-started from the nearest earlier
    one."""
    from tqdm import tqdm

    bar = tqdm(
        total=len(todo),
        file=sys.stderr,
        unit="frame",
        desc=f"UMAP film of {run.name}",
        mininterval=0.5,
        dynamic_ncols=True,
        disable=not progress or settings.get("no_progress"),
    )
    made = 0
    try:
        for step in todo:
            snapshot = runlog.load_snapshot(snapshots[step])  # a DataError naming the file when damaged
            coords[step] = frame_of(snapshot, _warm_start(coords, step, len(snapshot)), _seed(run))
            made += 1
            if save:
                save = _save(run, step, coords[step])
            bar.update(1)
            if report is not None:
                report(made, len(todo))
    finally:
        bar.close()
    return made


def _warm_start(coords: dict[int, np.ndarray], step: int, n: int) -> np.ndarray | None:
    """The frame nearest to ``step``, an earlier one preferred (the app's :meth:`Film.nearest`), of ``n``
    points."""
    fitting = [s for s, frame in coords.items() if len(frame) == n]
    if not fitting:
        return None
    earlier = [s for s in fitting if s < step]
    return coords[max(earlier) if earlier else min(fitting, key=lambda s: abs(s - step))]


def _save(run: RunData, step: int, frame: np.ndarray) -> bool:
    """Write a made frame for the app to reuse; False (and one warning) when the folder cannot take it."""
    try:
        runlog.save_frame(run.path, step, frame)
    except OSError as err:
        run.warnings.append(
            f"{run.path.name}/frames: cannot save the frames made ({one_line(err)}); "
            "the lesson has them all the same"
        )
        return False
    return True


def _assemble(run: RunData, coords: dict[int, np.ndarray], made: int, notes: list[str]) -> FilmFrames | None:
    """The frames in step order; frames of another point count than the film's (the points of ``points.csv``,
    else the most common count) are left out with a note."""
    if not coords:
        return FilmFrames([], np.zeros((0, 0, 2), dtype=np.float32), made, notes)
    counts = [len(frame) for frame in coords.values()]
    expected = (
        len(run.points)
        if run.points is not None and len(run.points) in counts
        else max(set(counts), key=counts.count)
    )
    odd = sorted(step for step, frame in coords.items() if len(frame) != expected)
    if odd:
        notes.append(
            f"{len(odd)} frame(s) of another point count than the film's {expected} are left out "
            f"(steps {', '.join(map(str, odd[:5]))}{'…' if len(odd) > 5 else ''})"
        )
    steps = sorted(step for step in coords if step not in odd)
    stacked = np.stack([np.asarray(coords[step], dtype=np.float32) for step in steps])
    if stacked.shape[2] != 2:
        raise DataError(f"{run.path.name}/frames: frames are not 2-D")
    return FilmFrames(steps, stacked, made, notes)
