"""The chart panel of the shown runs: curves (left) and projection (right), live while a run goes.

While a run trains, the curves and the newest projection frame are drawn by the live view
(:mod:`ui.live_view`: one component, Plotly.js) from a chart description (:mod:`engine.charts.description`)
of the same figures the finished view shows. The component fetches the next description every
``live_seconds`` from the live feed (:mod:`ui.feed`, built by :mod:`ui.live_state`); the page reruns only
when what it draws around the charts changes (a run's state, a diverging loss:
:func:`ui.live_state.signature`); "No metrics yet" is drawn by the live view itself, so the first curves need
no page rerun. Finished runs are drawn by the same component (all points, interactive under the pointer).

The user picks the measures drawn (the curves and the covariance spectrum) and the relation figure's two
measures (:mod:`ui.lens`); the spectrum and the relation figures are drawn full width under the curves, live
too. Every figure names the data its measures come from (a SimCSE run's evaluation pairs, a probe's data set:
:func:`ui.live_state.where`). Under the charts' options: a warning for a run whose loss diverges, and,
where a run has fewer items (or a smaller geometry sample) than dimensions, why its IsoScore is capped and its
IsoScore* on demand. In projector mode (:mod:`ui.projector`) the panel is the lesson's curves (or one chosen
curve, :mod:`ui.projector_curves`) beside the film, both at full width, in large type.
"""

from __future__ import annotations

import secrets
import time
from functools import partial
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import charts
from engine.charts import description
from engine.core.setting_checks import get_or_default
from engine.jobs import Job, JobRegistry
from engine.runlog.states import RunState
from ui import feed, live_state, live_view, player, projection_hold, projector, projector_curves
from ui.chart_bar import chart_bar
from ui.collapse_note import collapse_notes
from ui.isoscore_notes import capped_note as capped_note  # the pages' import
from ui.isoscore_notes import isoscore_notes
from ui.runs import changing, failed_lines, registry, run_label
from ui.text import plain

#: projector mode shows the film beside the chosen curve for at most this many runs
FILM_BESIDE_RUNS = 2
PLOTLY = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}

# -------------------------------------------------------------------------------------------- curves


def draw_figure(fig: go.Figure, key: str) -> None:
    st.plotly_chart(fig, key=key, config=PLOTLY)


def warnings_of(jobs: list[Job]) -> None:
    """A warning for each run whose loss diverges (NaN/inf, or 10 times its start): the learning rate."""
    for job in jobs:
        reason = charts.divergence(job.rows.metrics())
        if reason is None:
            continue
        lr = job.config_dict.get("lr")
        rate = f" ({lr:g})" if isinstance(lr, int | float) else ""
        act = "stop it (■ Stop in the sidebar), " if job.active else ""
        st.warning(
            plain(
                f"{run_label(job)} diverges: {reason}. The learning rate{rate} is probably too high: "
                f"{act}lower “Learning rate” and start again."
            ),
            icon=":material/trending_up:",
        )


def nothing_to_draw(jobs: list[Job]) -> bool:
    """Whether the shown runs ended without a row: failed at set-up, or cancelled (only their lines show)."""
    return bool(jobs) and all(not job.active and job.rows.last_step is None for job in jobs)


# ---------------------------------------------------------------------------------------- projection


def live_projection_panel(
    job: Job, frame: str, coords: Any, points: pd.DataFrame, title: str, key: str
) -> dict:
    """The live view's panel of a running job's newest frame, built once per frame and kept in the session (as
    JSON): the projection's poll mostly finds the same frame, and its figure (thousands of points with their
    sentences) need not be rebuilt for it."""
    version = (
        f"{job.id}-{frame}-{int(projector.on())}"  # the renderer also draws a panel only when it changes
    )
    slot = f"{key}.projlive.panel"
    panel = st.session_state.get(slot)
    if panel is None or panel["version"] != version:
        figure = charts.projection_figure(coords, points, title=title, style=projector.style())
        panel = description.plain(description.panel(figure, "projection", wide=True, version=version))
        st.session_state[slot] = panel
    return panel


def draw_projection(job: Job | None, key: str) -> None:
    """The projection panel: live newest frame while running (PCA until UMAP), slider + play afterwards."""
    if job is None:
        st.info("Projections appear here for runs with snapshots.")
        return
    style = projector.style()
    played = player.step_of(job)  # a paced run: its frames cut at the step its curves show
    live = job.active and played is None
    held = projection_hold.kept(st.session_state, key, job.id) if live else None
    if held is not None:  # the frame drawn last, while building frames would take over DUTY of the time
        live_view.show(held, f"{key}.projlive", single=True)
        film_error(job)
        return
    started = time.monotonic()
    view = player.played_view(job, played)
    if view is None:
        if not job.config_dict.get("snapshot_every"):
            st.info(f"{plain(run_label(job))} keeps no snapshots: set a UMAP frame interval before Start.")
        else:
            st.info(
                f"{plain(run_label(job))}: no embedding snapshot yet."
                if job.active or played is not None
                else f"{plain(run_label(job))} kept no snapshots."
            )
        return
    method, step, coords = view
    points = job.pictures.points()
    frames = player.played_frames(job.frames(), played)
    projecting = registry().projecting(job)
    if job.active or projecting or len(frames) < 2 or player.playing(job):
        title = f"{'UMAP' if method == 'umap' else 'PCA (UMAP soon)'} · step {step}"
        if projecting and not job.active:
            title += f" · {job.film_line() or f'film: {len(frames)} frames'}"
        if job.active:  # the live view draws a frame once: no WebGL redraw while training
            panel = live_projection_panel(job, f"{method}-{step}", coords, points, title, key)
            built = description.description([panel])
            live_view.show(built, f"{key}.projlive", single=True)
            if live:
                projection_hold.keep(st.session_state, key, job.id, built, time.monotonic() - started)
        else:
            draw_figure(charts.projection_figure(coords, points, title=title, style=style), f"{key}.proj")
    else:
        draw_figure(
            charts.frames_figure(frames, points, title=f"UMAP · {len(frames)} frames", style=style),
            f"{key}.frames",
        )
    film_error(job)


def film_error(job: Job) -> None:
    """The last UMAP frame's error under the projection, where one failed."""
    if job.pictures.film.error:
        st.caption(f"Last UMAP frame failed: {plain(job.pictures.film.error)}")


# ---------------------------------------------------------------------------------------------- panel


def ended_without_rows(jobs: list[Job]) -> bool:
    """When the shown runs ended without a row, draw only their error lines (and, for runs cancelled
    before their first step, one line saying so); True when it did."""
    if not nothing_to_draw(jobs):
        return False
    failed_lines(jobs)
    if not any(job.state == RunState.FAILED for job in jobs):
        st.info(
            plain(", ".join(run_label(job) for job in jobs))
            + ": cancelled before its first step; nothing to show."
        )
    return True


def projected_run(reg: JobRegistry, names: dict[str, str], picked: list[str], key: str) -> Job | None:
    """The run whose projection is drawn: the picker's choice among ``names`` (the runs with snapshots),
    else the first of them; None when no shown run has snapshots."""
    if not names:
        return None
    chosen = picked[0] if picked else st.session_state.get(f"{key}.projected")
    return reg.get(chosen if chosen in names else next(iter(names)))


def columns_of(jobs: list[Job], names: dict[str, str], *, together: bool = False) -> tuple[bool, Any, Any]:
    """``(wide, left, right)``: curves left and projection right; in projector mode the chosen curve takes
    the width where there is no film, or more than two runs to compare (a film shows one run; the runs'
    legend needs the room), and ``right`` is None; ``together`` (the lesson's curves side by side): two
    thirds of the width for them, a third for the film."""
    wide = projector.on() and (not names or len(jobs) > FILM_BESIDE_RUNS)
    if wide:
        return True, st.container(), None
    left, right = st.columns(([2, 1] if together else [1, 1]) if projector.on() else [3, 2])
    return False, left, right


def frames_coming(reg: JobRegistry, job: Job | None) -> bool:
    """Whether ``job``'s projection will change: its film is being made, or it runs with snapshots."""
    if job is None:
        return False
    return (
        reg.projecting(job)
        or (job.active and bool(job.config_dict.get("snapshot_every")))
        or player.playing(job)
    )


def live_panel(
    jobs: list[Job],
    metrics: list[str],
    key: str,
    figures: tuple[str, ...] = (),
    *,
    drawn: list[str] | None = None,
    pair: tuple[str, str] | None = None,
) -> list[Job]:
    """Charts (left, refreshed every ``live_seconds`` while a shown run is going, drawn by the live view)
    and projection (right, every ``projection_seconds``: a redraw of thousands of WebGL points costs the
    browser more than all the curves). The measure picker chooses which of ``metrics`` (and the covariance
    spectrum) are drawn (``drawn``: its first choice, default all); ``pair``: the relation figure's first
    x and y (any two measures, picked above the charts). Under the curves, full width: the spectrum, the
    relation figure, then the run figures named in ``figures`` (:data:`engine.charts.RUN_FIGURES`).
    Returns the runs whose progress it refreshes: all shown runs while one is going or being projected.
    Runs that ended without a row show only their error lines."""
    if ended_without_rows(jobs):
        return []
    reg = registry()
    live = any(changing(job) for job in jobs)
    with_snapshots = [job for job in jobs if job.active or job.view() is not None]
    names = {job.id: run_label(job) for job in with_snapshots}
    picked: list[str] = []

    def projection_picker() -> None:
        if names:
            picked.append(
                st.selectbox(
                    "Projection of",
                    list(names),
                    format_func=lambda run: f"Projection: {names[run]}",
                    key=f"{key}.projected",
                    label_visibility="collapsed",
                )
            )

    bar = chart_bar(metrics, drawn if drawn is not None else metrics, pair, key, projection_picker)
    for job in jobs:  # a damaged file is named beside its run; the other runs are drawn as usual
        if job.pictures.damaged:
            st.warning(plain(f"{run_label(job)}: {job.pictures.damaged}"))
    projected = projected_run(reg, names, picked, key)
    lesson = projector_curves.lesson_curves(jobs, metrics, figures) if projector.on() else ()
    opening = projector_curves.opening(jobs, metrics, figures) if projector.on() else None
    together = projector_curves.chosen_now(key, opening) == live_state.LESSON
    wide, left, right = columns_of(jobs, names, together=together)
    chosen_curve = None
    if projector.on():  # above the curve, in its column: the film beside it starts as high
        with left:
            chosen_curve = projector_curves.curve_choice(
                metrics, bar.pair is not None, key, opening, figures=figures, lesson=lesson
            )
    choices = live_state.Choices(
        ids=tuple(job.id for job in jobs),
        metrics=tuple(metrics),
        measures=tuple(bar.measures),
        options=bar.options,
        pair=bar.pair,
        share=bar.share,
        figures=tuple(figures),
        projector=projector.on(),
        chosen_curve=chosen_curve,
        wide=wide,
        lesson_curves=lesson,
    )

    @st.fragment
    def curves() -> None:
        look = live_state.look_at(registry(), choices)
        if live and not look.changing:
            st.rerun(scope="app")  # runs and frames done: refresh downloads, draw them with Plotly
        found = live_state.figures(look, choices, live=live)
        for line in found.errors:
            st.caption(plain(line))
        failed_lines(look.jobs)
        warnings_of(look.jobs)
        collapse_notes(look.jobs)  # collapse, seen coming: the step the charts mark
        why_empty = live_state.message(look, choices, found)
        if why_empty and not live:  # while a run goes, the live view draws it (no page rerun when it goes)
            st.info(why_empty)
        if live:
            live_charts(choices, (look, found), key)
        elif look.logged:  # the same component at the same place: the charts never flash at a run's end
            live_charts(choices, (look, found), key, ended=True)

    @st.fragment(run_every=get_or_default("projection_seconds") if frames_coming(reg, projected) else None)
    def projection() -> None:
        draw_projection(projected, key)

    with left:
        curves()
    if right is not None:
        with right:
            projection()
    if not projector.on():  # under the charts: the first charts start high on a laptop's screen
        isoscore_notes(jobs, key)
    return jobs if live else []


def session_token() -> str:
    """This browser session's name for the live feed (kept in its session state)."""
    return st.session_state.setdefault("live.session", secrets.token_urlsafe(12))


def live_charts(
    choices: live_state.Choices,
    first: tuple[live_state.Look, live_state.Figures],
    key: str,
    *,
    ended: bool = False,
) -> None:
    """The live view of running runs: a fragment that draws only the live component, which then fetches its
    next descriptions from the live feed (:mod:`ui.feed`) itself; the fragment reruns every
    :data:`ui.feed.RENEW_SECONDS` to renew the feed (and when the component finds the page's signature
    changed, :func:`ui.live_state.signature`: then the whole page reruns). ``first``: the look and figures the
    page run has just made (drawn at once, not built twice).

    ``ended``: the shown runs no longer change; the same component, at the same place, draws their finished
    charts (all points, no feed), whether this session watched them run or opened them finished: a second
    drawing path (Streamlit's Plotly charts) left the charts blank, or at older data, for a moment at every
    run's end."""
    if ended:
        look, found = first

        @st.fragment
        def charts_now() -> None:
            found_now = description.description(live_state.panels(look, choices, found, live=False))
            live_view.show(found_now, f"{key}.live")  # no stamp: the finished charts are always drawn

        charts_now()
        return
    drawn = live_state.signature(first[0], choices, first[1])
    pending = [first]  # a fragment reruns with its first arguments: the page run's look is used once
    session = session_token()
    view = live_state.view_key(choices)

    @st.fragment(run_every=feed.RENEW_SECONDS)
    def charts_now() -> None:
        reg = registry()
        build, stamp = partial(live_state.payload, reg, choices), partial(live_state.stamp, reg, choices)
        if pending:
            look, found = pending.pop()
            now = live_state.payload_of(look, choices, found)
        else:  # a renewal: the feed's build of this view, shared with the other tabs showing it
            now = feed.current(build, view=view, stamp=stamp)
        if now["signature"] != drawn:
            st.rerun(scope="app")
        fed = feed.follow(session, build, now, view=view, stamp=stamp)
        live_view.show(
            now["description"],
            f"{key}.live",
            fed=fed,
            taken=now.get("taken"),
            unseen=now.get("unseen"),
            on_drawn=player.cue,  # the playheads of the runs drawn start (the view's pace: nothing else)
        )

    charts_now()
