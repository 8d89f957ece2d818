"""The chart panel at one moment: what the shown runs logged, the figures and the chart description
(:mod:`engine.charts.description`) made of it, and the signature of what Streamlit itself draws around them.

The page's chart fragment builds it to draw; while a run trains, the live feed's thread (:mod:`ui.feed`)
builds it again every ``live_seconds`` from the same :class:`Choices`. No Streamlit here (nor in what this
module imports): the feed's thread runs it outside any script run."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from engine import charts, runlog
from engine.charts import description, legend
from engine.charts.onset_marks import onsets
from engine.core import settings
from engine.jobs import Job, JobRegistry
from engine.runlog.states import RunState
from ui import lens_figures as lens
from ui import player
from ui.run_facts import changing, progress_text, run_label

RELATION = "relation"  # the projector's curve choice that means the relation of the picked pair
RUN_FIGURE = "figure:"  # the projector's curve choice of a run figure: this, then its name
LESSON = "lesson"  # the projector's curve choice of the lesson's curves together (Choices.lesson_curves)
NO_METRICS = "No metrics yet: the first row appears after set-up (loading data, encoding) is done."
NO_MEASURE = "No measure picked: choose some under “Measures drawn”."


@dataclass(frozen=True)
class Choices:
    """What the chart panel shows, as picked when the page ran: the runs, the measures drawn, the curves'
    options, the relation pair, the spectrum's scale, the page's run figures by name
    (:data:`engine.charts.RUN_FIGURES`), and projector mode with its one curve."""

    ids: tuple[str, ...]
    metrics: tuple[str, ...]
    measures: tuple[str, ...]
    options: dict[str, Any]
    pair: tuple[str, str] | None
    share: bool
    figures: tuple[str, ...] = ()
    projector: bool = False
    chosen_curve: str | None = None
    wide: bool = False  # projector mode: the chosen curve alone across the screen (no film beside it)
    lesson_curves: tuple[str, ...] = ()  # projector mode: the curves LESSON draws side by side


#: this server process in the stamps of its looks (:func:`taken`): looks of two processes (a server restarted
#: under an open page) are never compared
SERVER = secrets.token_hex(4)
#: the looks of this process, numbered in the order they were taken (by page runs and by the feed's thread)
_looks = itertools.count(1)
#: held while a look is numbered and reads the runs: looks read in the order of their numbers (the runs'
#: files only grow, so a look numbered later never holds older rows)
_reading = threading.Lock()


@dataclass
class Look:
    """The shown runs now: the jobs still known, their metrics as charted, the measures logged so far, where
    each measure was measured, the running runs' ``(fraction, text)`` progress, and whether any run's charts
    or frames still change."""

    jobs: list[Job]
    runs: dict[str, pd.DataFrame]
    logged: list[str]
    on: Callable[[str], str | None]
    bars: list[tuple[float, str]]
    changing: bool
    number: int = 0  # when it was taken, among this process's looks (:func:`taken`)
    played: dict[str, int] = field(default_factory=dict)  # the step the player shows of a paced run, by id

    def baselines(self, metric: str) -> list[float]:
        """The reference lines of ``metric`` (STS: the untouched encoder's score in each shown run's summary,
        :func:`engine.charts.baselines`)."""
        return charts.baselines([job.summary for job in self.jobs], metric)

    def present(self, choices: Choices) -> list[str]:
        """The logged measures the user picked, in the page's order."""
        return [metric for metric in self.logged if metric in choices.measures]


@dataclass
class Figures:
    """The spectrum (when picked and logged), the relation figures, a line per damaged spectrum file, and in
    projector mode the one chosen curve (None when it has nothing to show)."""

    spectrum: Any
    relations: list[Any]
    errors: list[str]
    chosen: Any = None
    also: list[Any] = field(default_factory=list)  # projector mode: the lesson's other curves beside it

    def all(self) -> list[Any]:
        return ([self.spectrum] if self.spectrum is not None else []) + self.relations


# --------------------------------------------------------------------------- what the runs measured on


def measured_of(job: Job, metric: str) -> str | None:
    """The data ``metric`` of ``job`` was measured on, in words (None for the training loss)."""
    return charts.measured_of(job.kind, metric, job.config_dict, job.summary)


def where(jobs: list[Job], runs: dict[str, pd.DataFrame]) -> Callable[[str], str | None]:
    """``where(metric)``: the data the shown runs that log ``metric`` measured it on ("A / B" when they
    differ), for the figures' titles."""

    def on(metric: str) -> str | None:
        found = []
        for job in jobs:
            frame = runs.get(run_label(job))
            if frame is not None and charts.available_metrics({"run": frame}, [metric]):
                text = measured_of(job, metric)
                if text and text not in found:
                    found.append(text)
        return " / ".join(found) or None

    return on


# ------------------------------------------------------------------------------------------- a look


def look_at(reg: JobRegistry, choices: Choices) -> Look:
    """The shown runs as they are now (runs deleted meanwhile are left out), numbered among this process's
    looks. The number is taken and the runs are read under one lock: numbered after the reading, a page run's
    look that read its rows before the feed's thread read newer ones got the higher number, and the live view
    drew it over the newer one and then refused the feed's (the curves went back, 109 -> 103, for 2 s)."""
    with _reading:
        number = next(_looks)
        jobs = [job for job in map(reg.get, choices.ids) if job is not None]
        runs = lens.chart_frames(jobs)
        steps = played_steps(jobs, runs)
        bars = bars_of(jobs, steps)
        still = any(changing(job, reg) for job in jobs)
    return Look(
        jobs=jobs,
        runs=runs,
        logged=charts.available_metrics(runs, list(choices.metrics)),
        on=where(jobs, runs),
        bars=bars,
        changing=still,
        number=number,
        played=steps,
    )


def played_steps(jobs: list[Job], runs: dict[str, pd.DataFrame]) -> dict[str, int]:
    """The step the player shows of each paced run (:mod:`ui.player`), by id; its rows in ``runs`` are cut
    there (every figure then shows that step)."""
    steps = {}
    for job in jobs:
        label = run_label(job)
        step = player.step_of(job, runs.get(label))
        if step is not None and label in runs:
            runs[label] = player.played(runs[label], step)
            steps[job.id] = step
    return steps


def bars_of(jobs: list[Job], steps: dict[str, int] | None = None) -> list[tuple[float, str]]:
    """The progress line of every shown run that started, ended ones too ("finished", "stopped at step
    30/60"): a line that went when its run ended moved the charts under it up by its height (39 px) at the
    end of every run. A paced run's line is the player's step counter (``steps``: by id)."""
    steps = steps or {}
    found = []
    for job in jobs:
        if steps and job.id in steps:
            step, total = steps[job.id], job.total_steps or 1
            found.append((step / total, f"{run_label(job)} — {player.counter(step, total)}"))
        elif job.active or job.rows.last_step is not None:
            found.append(progress_text(job))
    return found


def figures(look: Look, choices: Choices, *, live: bool) -> Figures:
    """The spectrum and relation figures: plain Plotly JSON for the live view, Plotly figures in the
    projector's style in projector mode."""
    style = charts.PROJECTOR if choices.projector else None
    as_json = not choices.projector
    spectrum, errors = (
        lens.spectrum_figure(look.jobs, look.on, choices.share, style, as_json=as_json, steps=look.played)
        if lens.SPECTRUM in choices.measures
        else (None, [])
    )
    relations = (
        [lens.pair_figure(look.runs, choices.pair, look.on, style, as_json=as_json)] if choices.pair else []
    )
    relations += charts.run_figures(choices.figures, look.runs, look.on, style=style, as_json=as_json)
    found = Figures(spectrum, [fig for fig in relations if fig is not None], errors)
    if choices.projector and choices.chosen_curve == LESSON:
        # a measure not logged draws nothing here (not the first logged one); side by side, each is narrower
        curves = [c for c in choices.lesson_curves if c.startswith(RUN_FIGURE) or c in look.logged]
        apart = replace(choices, wide=choices.wide and len(curves) == 1)
        drawn = [chosen_figure(look, replace(apart, chosen_curve=c), found, live=live) for c in curves]
        drawn = [figure for figure in drawn if figure is not None]
        found.chosen, found.also = (drawn[0], drawn[1:]) if drawn else (None, [])
    elif choices.projector:
        found.chosen = chosen_figure(look, choices, found, live=live)
    return found


def chosen_figure(look: Look, choices: Choices, found: Figures, *, live: bool) -> Any:
    """Projector mode: the one chosen curve (a measure, the spectrum, the relation of the picked pair or a
    run figure), large; the runs' shared name (a preset's) on its title, not in every legend entry."""
    if choices.chosen_curve == RELATION:
        return found.relations[0] if found.relations else None
    if choices.chosen_curve == lens.SPECTRUM:
        return found.spectrum
    part, runs = legend.shortened(look.runs)
    style = charts.PROJECTOR_WIDE if choices.wide else charts.PROJECTOR
    if choices.chosen_curve and choices.chosen_curve.startswith(RUN_FIGURE):
        name = choices.chosen_curve[len(RUN_FIGURE) :]
        drawn = charts.run_figures([name], runs, look.on, style=style)
        return legend.titled_part(drawn[0], part) if drawn else None
    if not look.logged:
        return None
    metric = choices.chosen_curve if choices.chosen_curve in look.logged else look.logged[0]
    figure = charts.metric_figure(
        runs,
        metric,
        measured_on=look.on(metric),
        baseline=look.baselines(metric),
        style=style,
        max_points=settings.get("live_points") if live else None,
        **choices.options,
    )
    return legend.titled_part(figure, part)


def panels(look: Look, choices: Choices, found: Figures, *, live: bool = True) -> list[description.Panel]:
    """The live view's panels: the picked curves (two per row) and the extra figures (full width), or in
    projector mode the chosen curve alone; ``live``: the curves downsampled to ``live_points`` (else to
    ``chart_points``, as the finished charts)."""
    if not look.logged:
        return []
    if choices.projector:  # the chosen curve across its column, or the lesson's side by side
        shown = [found.chosen, *found.also] if found.chosen is not None else []
        return [
            description.panel(fig, f"chosen{i or ''}", wide=len(shown) == 1) for i, fig in enumerate(shown)
        ]
    points = settings.get("live_points") if live else None
    curves = [
        description.panel(
            charts.metric_json(
                look.runs,
                metric,
                max_points=points,
                measured_on=look.on(metric),
                baseline=look.baselines(metric),
                **choices.options,
            ),
            metric,
        )  # plain JSON: no Plotly objects
        for metric in look.present(choices)
    ]
    return curves + [description.panel(fig, f"extra{i}", wide=True) for i, fig in enumerate(found.all())]


def message(look: Look, choices: Choices, found: Figures) -> str | None:
    """Why nothing is drawn, where nothing is: no row logged yet (unless a run failed: its error says why),
    or no measure picked; None where there is something to draw."""
    if not look.logged:
        return None if any(job.state == RunState.FAILED for job in look.jobs) else NO_METRICS
    if choices.projector:
        return NO_METRICS if found.chosen is None else None
    if not look.present(choices) and found.spectrum is None:
        return NO_MEASURE
    return None


def signature(look: Look, choices: Choices, found: Figures) -> str:
    """What Streamlit draws around the live view depends on, as one string: whether any run still changes,
    each run's state, the diverging runs, the damaged spectrum files and the runs whose collapse began. The
    live view asks for a rerun of the page when the feed's signature differs from the one it was drawn with.
    The first row of a run does not change it: "No metrics yet" is the description's :func:`message`, drawn
    by the live view itself, so the curves appear without a page rerun (which cost the browser about 0.3 s
    of a core, taken from the training on a 2-core machine: docs/performance.md)."""
    diverging = [job.id for job in look.jobs if charts.divergence(look.runs[run_label(job)]) is not None]
    collapsing = sorted(onsets(look.runs))  # the page's "collapse is beginning" line (ui.collapse_note)
    state = [[job.id, job.state] for job in look.jobs]
    return json.dumps([look.changing, state, diverging, found.errors, collapsing])


def description_of(
    look: Look, choices: Choices, found: Figures, *, live: bool = True
) -> description.Description:
    """The live view's chart description now: the panels, the running runs' progress and why nothing is
    drawn, where nothing is (:func:`message`)."""
    return description.description(
        panels(look, choices, found, live=live), progress=look.bars, message=message(look, choices, found)
    )


def payload_of(look: Look, choices: Choices, found: Figures) -> dict[str, Any]:
    """The live feed's payload now (:data:`ui.feed.Payload`): the description as JSON, the signature,
    whether the runs still change (or are still played, :mod:`ui.player`), when its look was taken
    (:func:`taken`), and the paced runs whose first row waits for the view's cue (``unseen``)."""
    return {
        "unseen": player.unseen(list(look.played)),
        "description": description.versioned(description.plain(description_of(look, choices, found))),
        "signature": signature(look, choices, found),
        "live": look.changing,
        "taken": taken(look, choices),
    }


def taken(look: Look, choices: Choices) -> list[Any]:
    """When ``look`` was taken, for the live view's component (``ui/web/live.js``): ``[server, view,
    number]``: this server process, what the view shows (a hash of :func:`view_key`, None without one) and
    the look's number. The component draws no description older than the one it drew of the same server
    and view: a page run's look, taken before the feed's newer one was drawn but given to the component
    after it, made the curves jump back by a second's rows (seen on a loaded machine, 2026-11-29)."""
    view = view_key(choices)
    shown = None if view is None else hashlib.blake2b(repr(view).encode(), digest_size=8).hexdigest()
    return [SERVER, shown, look.number]


def payload(reg: JobRegistry, choices: Choices) -> dict[str, Any]:
    """Look at the shown runs again and make the live view's payload (the live feed's, every second)."""
    look, found = now(reg, choices)
    return payload_of(look, choices, found)


def view_key(choices: Choices) -> Hashable | None:
    """What a live view shows, as a hashable key: the sessions whose keys are equal draw the same payload
    from the same runs, and the live feed builds it once for them all (:mod:`ui.feed`). None when a choice
    cannot be keyed: that view is built for its session alone."""
    try:
        key = (
            choices.ids,
            choices.metrics,
            choices.measures,
            tuple(sorted(choices.options.items())),
            choices.pair,
            choices.share,
            choices.figures,
            choices.projector,
            choices.chosen_curve,
            choices.lesson_curves,
        )
        hash(key)
    except TypeError:
        return None
    return key


def _file_stamp(path: os.PathLike) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def stamp(reg: JobRegistry, choices: Choices) -> Hashable:
    """What the live payload of ``choices`` depends on now, cheaply (no file read, a few stats): each shown
    run's state, phase, set-up progress and summary, whether it still changes, and the size and time of its
    ``metrics.csv`` and ``spectrum.csv``. While it is unchanged, :func:`payload` would make the same payload
    (the live feed does not build it again); taken before a build, so a build never gets an older stamp."""
    found = []
    for run_id in choices.ids:
        job = reg.get(run_id)
        if job is None:
            found.append(None)
            continue
        found.append(
            (
                job.state,
                job.phase,
                job.setup_progress,
                int(time.time()) if job.phase == "starting" else None,  # its line counts the seconds
                job.total_steps,
                job.summary is not None,
                changing(job, reg),
                _file_stamp(job.run_dir / runlog.METRICS),
                _file_stamp(job.run_dir / runlog.SPECTRUM),
                player.step_of(job),  # the step played (a paced run's payload changes with it)
            )
        )
    return tuple(found)


def now(reg: JobRegistry, choices: Choices) -> tuple[Look, Figures]:
    """Look at the shown runs again, with their live figures."""
    look = look_at(reg, choices)
    return look, figures(look, choices, live=True)
