"""The page's one player: the step up to which the charts show a run's rows, at a lecture pace
(:mod:`engine.core.pace`) for a run whose lecture-pace switch is on, and for recorded runs played for a class
(:mod:`ui.recorded`). No Streamlit here: the live feed's thread asks it too (:mod:`ui.live_state`).

A live run trains at full speed; its rows are cut at the played step (:func:`played`) before any figure is
made of them, so every chart of the page (curves, relations, run figures) shows the same step, and the
progress line counts it. A run is played by this server once, whoever looks: a second tab joins the play
where it is. Its playhead holds the first row until the live view says it drew it (:func:`cue`: the
component's ``drawn`` trigger, for the runs its payload names ``unseen``, :func:`unseen`), or until
:data:`engine.core.pace.CUE_WAIT_SECONDS` after the first look (a page run's or the feed's) when no browser
says so. The cue starts a playhead and nothing else: no job, no process hears of it. A run attached from
disk (written by another server, or before a restart) is shown whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable

import numpy as np
import pandas as pd

from engine import runlog
from engine.charts.recorded import played as played  # one cut for live and recorded runs
from engine.core.errors import DataError
from engine.core.pace import Pace, Playhead
from engine.jobs import Job
from engine.jobs.pictures import View

#: the playheads of this server's paced runs (and recorded plays), by run id
_heads: dict[Hashable, Playhead] = {}
_lock = threading.Lock()
#: the most run ids one cue is read for (a browser's value: a page shows a few runs)
MAX_CUED = 64


def pace_of(job: Job) -> Pace | None:
    """The lecture pace of ``job`` (its switch on, a run of this server, its steps known), else None."""
    config = getattr(job, "config_dict", None) or {}
    if not config.get("lecture_pace") or getattr(job, "from_disk", False) or not job.total_steps:
        return None
    return Pace(int(job.total_steps))


def head(key: Hashable, pace: Pace) -> Playhead:
    """The playhead of ``key`` (made at the first call)."""
    with _lock:
        found = _heads.get(key)
        if found is None:
            found = _heads[key] = Playhead(pace, clock=_clock)
        return found


def _clock() -> float:
    return time.monotonic()  # looked up at each call: the tests set the module's clock


def cue(ids: list[str]) -> None:
    """The live view drew the first rows of the runs ``ids`` (its ``drawn`` trigger): their playheads move
    after their lead (:meth:`Playhead.cue`). An id without a playhead (not paced, not looked at by this
    server) is passed over."""
    for run in ids[:MAX_CUED]:
        with _lock:
            found = _heads.get(run)
        if found is not None:
            found.cue()


def unseen(ids: list[str]) -> list[str]:
    """Those of ``ids`` whose playhead holds its first row for the live view's cue (:func:`cue`)."""
    with _lock:
        found = [(run, _heads.get(run)) for run in ids]
    return [run for run, playhead in found if playhead is not None and playhead.waiting()]


def forget(key: Hashable) -> None:
    """Drop the playhead of ``key`` (a recorded play started again from its start)."""
    with _lock:
        _heads.pop(key, None)


def step_of(job: Job, frame: pd.DataFrame | None = None) -> int | None:
    """The step up to which ``job``'s rows are shown now (its playhead moved on), or None: all of them (no
    pace). ``frame``: its rows as charted, when read already."""
    pace = pace_of(job)
    if pace is None:
        return None
    last = job.rows.last_step
    first = 0 if last is not None else None
    if frame is not None:
        first, last = _steps(frame)
    return head(job.id, pace).at(first, last)


def playing(job: Job) -> bool:
    """Whether the player still has rows of ``job`` to show (at its pace), whatever the training's state."""
    pace = pace_of(job)
    if pace is None:
        return False
    last = job.rows.last_step
    with _lock:
        found = _heads.get(job.id)
    if found is None or not found.started:
        return job.active or last is not None
    return job.active or not found.done(last)


def played_spectra(spectra: runlog.Spectra, step: int | None) -> runlog.Spectra:
    """The spectra of ``spectra`` logged up to the played ``step`` (all for None): the spectrum panel shows
    the step the curves show."""
    if step is None:
        return spectra
    keep = spectra.steps <= step
    return runlog.Spectra(spectra.steps[keep], spectra.eigenvalues[keep])


def played_frames(frames: dict[int, np.ndarray], step: int | None) -> dict[int, np.ndarray]:
    """The UMAP frames of steps up to the played ``step`` (all for None)."""
    return frames if step is None else {at: coords for at, coords in frames.items() if at <= step}


def played_view(job: Job, step: int | None) -> View | None:
    """What the projection panel shows of ``job`` at the played ``step`` (its newest view for None): the
    newest UMAP frame up to it, else a PCA of the newest snapshot up to it (the same as :meth:`Job.view`
    when that one is not beyond the step), else None (no snapshot shown yet)."""
    view = job.view()
    if step is None or view is None:
        return view
    frames = played_frames(job.frames(), step)
    if frames:
        newest = max(frames)
        return "umap", newest, frames[newest]
    if view[0] == "pca" and view[1] <= step:
        return view
    earlier = [(at, path) for at, path in runlog.list_snapshots(job.run_dir) if at <= step]
    if not earlier:
        return None
    from engine.charts.projection_frames import pca_2d

    try:
        return "pca", earlier[-1][0], pca_2d(runlog.load_snapshot(earlier[-1][1]))
    except DataError:
        return None


def counter(step: int | None, total: int | None) -> str:
    """The step counter's words: ``step 45/150 · lecture pace``."""
    return f"step {step if step is not None else 0}/{total or '?'} · lecture pace"


def _steps(frame: pd.DataFrame) -> tuple[int | None, int | None]:
    """The first and the last step of ``frame`` (None, None without a row)."""
    steps = pd.to_numeric(frame["step"], errors="coerce").dropna() if "step" in frame else pd.Series()
    return (int(steps.iloc[0]), int(steps.iloc[-1])) if len(steps) else (None, None)
