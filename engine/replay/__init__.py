"""Replay: a run (or several) as a lesson to take home, one self-contained HTML file, and its film as a GIF.

``python -m engine replay RUN [RUN ...] --out lesson.html [--gif film.gif]``; the pages' Downloads offer the
same files. A teacher opens the HTML with no Python, no server and no network: it holds every metric curve,
the relation figure (IsoScore vs silhouette with r and ρ for a probe run, the alignment–uniformity path for
SimCSE), the UMAP film with Play/Pause and a step slider that moves a cursor on every curve, the settings, the
data and encoder, and the lesson's texts (:mod:`engine.lessons.texts`).

Modules: :mod:`~engine.replay.source` (a run folder read and checked), :mod:`~engine.replay.frames` (the film:
the app's frames, the missing ones made from snapshots), :mod:`~engine.replay.payload` (the page's data as
JSON, numbers as base64 typed arrays), :mod:`~engine.replay.page` (the HTML, with its
script and styles from ``engine/web/``), :mod:`~engine.replay.panels` (its charts as chart descriptions),
:mod:`~engine.replay.gif` (the GIF), :mod:`~engine.replay.cli` (the subcommand).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.replay.frames import FilmFrames
    from engine.replay.source import RunData

#: public names and their modules, imported on first use: ``engine.cli`` imports :mod:`engine.replay.cli`
#: for every command, and must not pay for pandas and plotly
_LAZY = {
    "FilmFrames": "engine.replay.frames",
    "evenly_spaced": "engine.replay.frames",
    "film": "engine.replay.frames",
    "film_gif": "engine.replay.gif",
    "lesson_html": "engine.replay.page",
    "RunData": "engine.replay.source",
    "load_run": "engine.replay.source",
    "resolve_run": "engine.replay.source",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'engine.replay' has no attribute {name!r}")


def lesson(
    run_dirs: Sequence[Path],
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
    max_frames: int | None = None,
    compute: bool | Sequence[bool] = True,
    save: bool = True,
    progress: bool = False,
) -> tuple[bytes, list[RunData], list[FilmFrames | None]]:
    """The lesson of ``run_dirs`` as HTML bytes, with the runs and films it was made of.

    ``names``: the runs' names in the lesson (default: their folders'); ``compute`` (one for all, or one per
    run): make a film's missing frames from the snapshots, else show the frames made so far; ``save``: write
    the frames made into the run folders, for the app."""
    from engine.replay.frames import film
    from engine.replay.page import lesson_html
    from engine.replay.source import load_run

    runs = [load_run(path, None if names is None else names[i]) for i, path in enumerate(run_dirs)]
    flags = [compute] * len(runs) if isinstance(compute, bool) else list(compute)
    films = [
        film(run, max_frames, compute=flag, save=save, progress=progress) for run, flag in zip(runs, flags)
    ]
    return lesson_html(runs, films, title).encode("utf-8"), runs, films


def frames_to_make(run_dirs: Sequence[Path], max_frames: int | None = None) -> int:
    """UMAP frames the lesson of ``run_dirs`` would first make from their snapshots (0: it is quick); only
    the folders' listings are read (a page asks this at every run)."""
    from engine import runlog
    from engine.replay.frames import frames_to_make as missing

    return sum(
        missing(
            [step for step, _ in runlog.list_snapshots(path)],
            [step for step, _ in runlog.list_frames(path)],
            max_frames,
        )
        for path in run_dirs
    )


def make_films(
    run_dirs: Sequence[Path], report: Callable[[int, int], None], max_frames: int | None = None
) -> None:
    """Make and save the missing film frames of ``run_dirs`` (:func:`frames_to_make` of them), calling
    ``report(made, to_make)`` after each frame, counted over all the runs."""
    from engine.replay.frames import film
    from engine.replay.source import load_run

    todo = {path: frames_to_make([path], max_frames) for path in run_dirs}
    total, before = sum(todo.values()), 0
    for path, count in todo.items():
        if count:
            report_all = lambda made, _, b=before: report(b + made, total)  # noqa: E731
            film(load_run(path), max_frames, progress=False, report=report_all)
            before += count


def run_gif(
    run_dir: Path,
    *,
    name: str | None = None,
    max_frames: int | None = None,
    compute: bool = True,
    save: bool = True,
) -> bytes:
    """The film of one run as GIF bytes (a DataError when it has no film)."""
    from engine.replay.frames import film
    from engine.replay.gif import film_gif
    from engine.replay.source import load_run

    run = load_run(run_dir, name)
    return film_gif(film(run, max_frames, compute=compute, save=save, progress=False), run.points, run.name)


__all__ = [
    "FilmFrames",
    "RunData",
    "evenly_spaced",
    "film",
    "film_gif",
    "frames_to_make",
    "lesson",
    "lesson_html",
    "load_run",
    "make_films",
    "resolve_run",
    "run_gif",
]
