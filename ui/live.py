"""The chart panel of the shown runs: curves (left) and projection (right), live while a run goes.

While a run trains, the curves and the newest projection frame are painted on the live canvas
(:mod:`ui.painter`) from the same Plotly figures the finished view shows: redrawing Plotly elements every
second would take the browser's CPU from the training on a small machine. Finished runs are drawn with
Plotly (zoom, export, full hover).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import charts, settings
from engine.jobs import Job
from ui import painter
from ui.controls import KEEP
from ui.runs import changing, failed_lines, metrics_by_run, progress_text, registry, run_label
from ui.text import plain

PLOTLY = {"displaylogo": False}


def chart_options(key: str) -> dict[str, Any]:
    """Smoothing, log-y and x axis options above the charts."""
    cols = st.columns([2, 1, 1])
    smoothing = cols[0].slider("Smoothing (EMA)", 0.0, 0.99, 0.0, 0.01, key=f"{key}.smooth", **KEEP)
    log_y = cols[1].toggle("log y", key=f"{key}.logy", **KEEP)
    x = cols[2].segmented_control("x axis", ["step", "seconds"], default="step", key=f"{key}.x", **KEEP) or "step"
    return {"smoothing": smoothing, "log_y": log_y, "x": x}


def draw_metric_grid(runs: dict[str, pd.DataFrame], present: list[str], options: dict[str, Any], key: str) -> None:
    """The ``present`` metrics' Plotly figures, two per row (finished runs: zoom, camera, full series)."""
    for start in range(0, len(present), 2):
        cols = st.columns(2)
        for col, metric in zip(cols, present[start:start + 2], strict=False):
            fig = charts.metric_figure(runs, metric, **options)
            col.plotly_chart(fig, key=f"{key}.{metric}", config=PLOTLY)


def paint_live(runs: dict[str, pd.DataFrame], present: list[str], options: dict[str, Any], key: str,
               extras: list[go.Figure]) -> None:
    """The running curves (two per row) and the extra figures (full width) on the live canvas: one element."""
    points = settings.get("live_points")
    panels = [painter.paint_spec(charts.metric_figure(runs, metric, max_points=points, **options), metric)
              for metric in present]
    panels += [painter.paint_spec(fig, f"extra{i}", wide=True) for i, fig in enumerate(extras)]
    painter.paint(panels, f"{key}.live")


def live_projection_panel(job: Job, frame: str, coords: Any, points: pd.DataFrame, title: str, key: str) -> dict:
    """The painter's panel of a running job's newest frame, built once per frame and kept in the session: the
    projection's poll mostly finds the same frame, and its figure (thousands of points with their sentences)
    need not be rebuilt for it."""
    version = f"{job.id}-{frame}"  # the painter also draws a panel only when its version changes
    slot = f"{key}.projlive.panel"
    panel = st.session_state.get(slot)
    if panel is None or panel["version"] != version:
        figure = charts.projection_figure(coords, points, title=title)
        panel = {**painter.paint_spec(figure, "projection", wide=True), "version": version}
        st.session_state[slot] = panel
    return panel


def draw_projection(job: Job | None, key: str) -> None:
    """The projection panel: live newest frame while running (PCA until UMAP), slider + play afterwards."""
    if job is None:
        st.info("Projections appear here for runs with snapshots.")
        return
    view = job.view()
    if view is None:
        if not job.config_dict.get("snapshot_every"):
            st.info(f"{run_label(job)} keeps no snapshots: set a UMAP frame interval before Start.")
        else:
            st.info(f"{run_label(job)}: no embedding snapshot yet." if job.active else
                    f"{run_label(job)} kept no snapshots.")
        return
    method, step, coords = view
    points = job.points()
    frames = job.frames()
    projecting = registry().projecting(job)
    if job.active or projecting or len(frames) < 2:
        title = f"{'UMAP' if method == 'umap' else 'PCA (UMAP soon)'} · step {step}"
        if projecting and not job.active:
            title += f" · film: {len(frames)} frames"
        if job.active:  # painted on the live canvas, once per frame: no WebGL redraw while training
            panel = live_projection_panel(job, f"{method}-{step}", coords, points, title, key)
            painter.paint([panel], f"{key}.projlive")
        else:
            st.plotly_chart(charts.projection_figure(coords, points, title=title), key=f"{key}.proj", config=PLOTLY)
    else:
        st.plotly_chart(charts.frames_figure(frames, points, title=f"UMAP · {len(frames)} frames"),
                        key=f"{key}.frames", config=PLOTLY)
    if job.frame_error:
        st.caption(f"Last UMAP frame failed: {plain(job.frame_error)}")


def live_panel(jobs: list[Job], metrics: list[str], key: str,
               extras: Callable[[dict[str, pd.DataFrame]], list[go.Figure]] | None = None) -> list[Job]:
    """Charts (left, refreshed every ``live_seconds`` while a shown run is going, painted on the live canvas)
    and projection (right, every ``projection_seconds``: a redraw of thousands of WebGL points costs the
    browser more than all the curves). ``extras`` makes more figures of the runs (drawn full width under the
    curves). Returns the runs whose progress it refreshes: all shown runs while one is going or being
    projected."""
    options = chart_options(key)
    reg = registry()
    live = any(changing(job) for job in jobs)
    ids = [job.id for job in jobs]
    with_snapshots = [job for job in jobs if job.active or job.view() is not None]
    for job in jobs:  # a damaged file is named beside its run; the other runs are drawn as usual
        if job.damaged:
            st.warning(plain(f"{run_label(job)}: {job.damaged}"))
    projected = None
    if with_snapshots:
        names = {job.id: run_label(job) for job in with_snapshots}
        chosen = st.selectbox("Projection of", list(names), format_func=names.get, key=f"{key}.projected")
        projected = reg.get(chosen)
    left, right = st.columns([3, 2])

    @st.fragment(run_every=settings.get("live_seconds") if live else None)
    def curves() -> None:
        reg = registry()
        current = [reg.get(i) for i in ids if reg.get(i) is not None]
        for job in current:
            if job.active:
                st.progress(*progress_text(job))
        failed_lines(current)
        runs = metrics_by_run(current)
        present = charts.available_metrics(runs, metrics)
        if not present:
            st.info("No metrics yet: the first row appears after set-up (loading data, encoding) is done.")
        if live:
            if present:
                paint_live(runs, present, options, key, extras(runs) if extras is not None else [])
        else:
            draw_metric_grid(runs, present, options, key)
            for i, fig in enumerate(extras(runs) if extras is not None else []):
                st.plotly_chart(fig, key=f"{key}.extra{i}", config=PLOTLY)
        if live and not any(changing(job) for job in current):
            st.rerun(scope="app")  # runs and frames done: refresh downloads and stop polling

    frames_coming = projected is not None and (
        reg.projecting(projected) or (projected.active and bool(projected.config_dict.get("snapshot_every"))))

    @st.fragment(run_every=settings.get("projection_seconds") if frames_coming else None)
    def projection() -> None:
        draw_projection(projected, key)

    with left:
        curves()
    with right:
        projection()
    return jobs if live else []
