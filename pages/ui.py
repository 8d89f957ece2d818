"""Shared drawing helpers of the pages: the job registry, error guard, run pickers, live panel, downloads.

Only composes engine calls and draws; no maths, no torch/sklearn/umap here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import streamlit.components.v1 as components

from engine import charts, export, priority
from engine.errors import EmbedlabError, one_line
from engine.jobs import Job, JobRegistry

log = logging.getLogger("embedlab.ui")
KEEP = {"persist_state": "session"}
LIVE_SECONDS = 1.0
LIVE_POINTS = 200  # points per curve while a run refreshes every second (the browser redraws them all)
PROJECTION_SECONDS = 2.0  # live projection refresh (new UMAP frames come every 3 s or so during a run)
# While a run trains, the curves are painted on <canvas> by pages/live_canvas/painter.js from the same Plotly
# figures (engine.charts.paint_spec): five Plotly elements redrawn every second took ~0.3 of the browser's core
# from training on this 2-core machine; finished runs are drawn with Plotly (zoom, export, full hover).
live_canvas = components.declare_component("embedlab_live_canvas", path=str(Path(__file__).with_name("live_canvas")))
STATE_ICONS = {"queued": "…", "running": "▶", "finished": "✓", "stopped": "■", "failed": "✗", "interrupted": "!"}


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    """The one job registry of this server process: survives reruns, page switches, reloads, closed tabs."""
    reg = JobRegistry()  # its worker thread starts the runs' children: made before the UI yields (below)
    try:
        reg.attach_finished()
    except Exception as err:  # noqa: BLE001 - a broken cache folder must not stop the app
        log.warning("could not list old runs: %s", one_line(err))
    return reg


@contextlib.contextmanager
def guard(what: str = "") -> Iterator[None]:
    """Show any user error (and any unexpected one) as a single st.error line, never a traceback."""
    try:
        yield
    except EmbedlabError as err:
        st.error(f"{what}{one_line(err)}", icon="⚠️")
    except Exception as err:  # noqa: BLE001 - the UI must keep working
        log.exception("unexpected error in the UI")
        st.error(f"{what}{one_line(err)}", icon="⚠️")


def run_label(job: Job) -> str:
    """Short, unique display name: ``name·abcd`` (the run folder's random suffix)."""
    return f"{job.name}·{job.id[-4:]}"


def option_label(reg: JobRegistry) -> Callable[[str], str]:
    def fmt(job_id: str) -> str:
        job = reg.get(job_id)
        return job_id if job is None else f"{STATE_ICONS.get(job.state, '')} {run_label(job)}"

    return fmt


@st.cache_resource(show_spinner=False)
def yield_to_training() -> int:
    """Once per server, at the first Start: the server's event loop, and the script threads it starts from then
    on, take a lower CPU priority than the runs' children (:mod:`engine.priority`). Not before: at start-up the
    pages must not wait behind umap-learn's JIT warm-up and the warm spare child."""
    try:
        return priority.yield_to_training([threading.main_thread().native_id, None])
    except EmbedlabError as err:
        log.warning("UI threads keep their priority: %s", one_line(err))
        return 0


def submit_runs(kind: str, runs: list[tuple[str, dict[str, Any]]]) -> list[Job]:
    """Queue runs; a user error shows one line and queues nothing more. The page then shows these runs."""
    reg = registry()
    yield_to_training()
    made = []
    for name, config in runs:
        made.append(reg.submit(kind, config, name=name))
    st.session_state[f"{kind}.shown"] = [job.id for job in made]
    return made


def shown_jobs(kind: str | None, *, label: str = "Runs shown") -> list[Job]:
    """The run picker of a page: this session's last submissions, else active runs, else the newest run."""
    reg = registry()
    pool = [job for job in reg.jobs() if kind is None or job.kind == kind]
    ids = [job.id for job in reversed(pool)]
    key = f"{kind or 'all'}.shown"
    chosen = [i for i in st.session_state.get(key, []) if i in ids]
    if not chosen:
        active = [job.id for job in pool if job.active]
        chosen = active or ids[:1]
    st.session_state[key] = chosen
    picked = st.multiselect(label, ids, key=key, format_func=option_label(reg), placeholder="pick runs to show")
    return [reg.get(i) for i in picked if reg.get(i) is not None]


def sidebar_controls_footer(kind: str, shown_live: list[Job] | None = None) -> None:
    """Stop for queued and running jobs of this kind, and a live progress bar in the sidebar, unless the
    running ones are among ``shown_live`` (runs whose progress the page's live panel already refreshes: one
    rerun a second instead of two, for the browser's sake)."""
    reg = registry()
    active = [job for job in reg.jobs() if job.kind == kind and job.active]
    if active and st.sidebar.button("■ Stop", key=f"{kind}.stop", width="stretch", help="Stop the running run and cancel queued ones"):
        for job in active:
            job.stop()
        st.rerun()
    with st.sidebar:
        progress_fragment(kind, shown_live or [])


def progress_fragment(kind: str, shown_live: list[Job]) -> None:
    reg = registry()
    going = [job for job in reg.jobs() if job.kind == kind and job.active]
    if going and {job.id for job in going} <= {job.id for job in shown_live}:
        st.caption(f"{', '.join(run_label(job) for job in going)}: progress beside the charts.")
        return
    live = any(job.active for job in reg.jobs())

    @st.fragment(run_every=LIVE_SECONDS if live else None)
    def progress() -> None:
        jobs = [job for job in registry().jobs() if job.kind == kind and (job.active or job is registry().current)]
        for job in jobs:
            st.progress(*progress_text(job))
        if not jobs:
            st.caption("No run going. Pick settings or a preset and press Start.")

    progress()


def progress_text(job: Job) -> tuple[float, str]:
    fraction, phase = job.progress()
    parts = [f"{run_label(job)} — {phase}" if job.state != "queued" else f"{run_label(job)} — queued"]
    rate, eta = job.steps_per_second(), job.eta_seconds()
    if rate:
        parts.append(f"{rate:.1f} steps/s")
    if eta is not None:
        parts.append(f"{format_seconds(eta)} left")
    return fraction, " · ".join(parts)


def format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def chart_options(key: str) -> dict[str, Any]:
    """Smoothing, log-y and x axis options above the charts."""
    cols = st.columns([2, 1, 1])
    smoothing = cols[0].slider("Smoothing (EMA)", 0.0, 0.99, 0.0, 0.01, key=f"{key}.smooth", **KEEP)
    log_y = cols[1].toggle("log y", key=f"{key}.logy", **KEEP)
    x = cols[2].segmented_control("x axis", ["step", "seconds"], default="step", key=f"{key}.x", **KEEP) or "step"
    return {"smoothing": smoothing, "log_y": log_y, "x": x}


def metrics_by_run(jobs: list[Job]) -> dict[str, pd.DataFrame]:
    return {run_label(job): job.metrics() for job in jobs}


def draw_metric_grid(runs: dict[str, pd.DataFrame], present: list[str], options: dict[str, Any], key: str) -> None:
    """The ``present`` metrics' Plotly figures, two per row (finished runs: zoom, camera, full series)."""
    for start in range(0, len(present), 2):
        cols = st.columns(2)
        for col, metric in zip(cols, present[start:start + 2], strict=False):
            fig = charts.metric_figure(runs, metric, **options)
            col.plotly_chart(fig, key=f"{key}.{metric}", config={"displaylogo": False})


def paint_live(runs: dict[str, pd.DataFrame], present: list[str], options: dict[str, Any], key: str,
               extras: list[go.Figure]) -> None:
    """The running curves (two per row) and the extra figures (full width) on the live canvas: one element."""
    panels = [charts.paint_spec(charts.metric_figure(runs, metric, max_points=LIVE_POINTS, **options), metric)
              for metric in present]
    panels += [charts.paint_spec(fig, f"extra{i}", wide=True) for i, fig in enumerate(extras)]
    live_canvas(panels=panels, key=f"{key}.live", default=None)


def live_projection_panel(job: Job, frame: str, coords: Any, points: pd.DataFrame, title: str, key: str) -> dict:
    """The painter's panel of a running job's newest frame, built once per frame and kept in the session: the
    2 s poll mostly finds the same frame (its figure, 2,000 points with their sentences, took ~15 ms)."""
    version = f"{job.id}-{frame}"  # the painter also draws a panel only when its version changes
    slot = f"{key}.projlive.panel"
    panel = st.session_state.get(slot)
    if panel is None or panel["version"] != version:
        figure = charts.projection_figure(coords, points, title=title)
        panel = {**charts.paint_spec(figure, "projection", wide=True), "version": version}
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
            live_canvas(panels=[panel], key=f"{key}.projlive", default=None)
        else:
            st.plotly_chart(charts.projection_figure(coords, points, title=title), key=f"{key}.proj",
                            config={"displaylogo": False})
    else:
        st.plotly_chart(charts.frames_figure(frames, points, title=f"UMAP · {len(frames)} frames"),
                        key=f"{key}.frames", config={"displaylogo": False})
    if job.frame_error:
        st.caption(f"Last UMAP frame failed: {job.frame_error}")


def failed_lines(jobs: list[Job]) -> None:
    for job in jobs:
        if job.state == "failed":
            st.error(f"{run_label(job)} failed: {job.error or 'unknown error'}", icon="❌")
        elif job.state == "interrupted":
            st.warning(f"{run_label(job)} was interrupted (its process ended); its rows up to the last step are kept.")


def changing(job: Job) -> bool:
    """Whether a run's charts or frames still change: it is queued or running, or UMAP frames are to come."""
    return job.active or registry().projecting(job)


def live_panel(jobs: list[Job], metrics: list[str], key: str,
               extras: Callable[[dict[str, pd.DataFrame]], list[go.Figure]] | None = None) -> list[Job]:
    """Charts (left, refreshed every second while a shown run is going, painted on the live canvas) and
    projection (right, every ``PROJECTION_SECONDS``: a redraw of 2,000 WebGL points costs the browser more than
    all the curves). ``extras`` makes more figures of the runs (drawn full width under the curves).
    Returns the runs whose progress it refreshes: all shown runs while one is going or being projected."""
    options = chart_options(key)
    reg = registry()
    live = any(changing(job) for job in jobs)
    ids = [job.id for job in jobs]
    with_snapshots = [job for job in jobs if job.active or job.view() is not None]
    projected = None
    if with_snapshots:
        names = {job.id: run_label(job) for job in with_snapshots}
        chosen = st.selectbox("Projection of", list(names), format_func=names.get, key=f"{key}.projected")
        projected = registry().get(chosen)
    left, right = st.columns([3, 2])

    @st.fragment(run_every=LIVE_SECONDS if live else None)
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
                st.plotly_chart(fig, key=f"{key}.extra{i}", config={"displaylogo": False})
        if live and not any(changing(job) for job in current):
            st.rerun(scope="app")  # runs and frames done: refresh downloads and stop polling

    frames_coming = projected is not None and (
        reg.projecting(projected) or (projected.active and bool(projected.config_dict.get("snapshot_every"))))

    @st.fragment(run_every=PROJECTION_SECONDS if frames_coming else None)
    def projection() -> None:
        draw_projection(projected, key)

    with left:
        curves()
    with right:
        projection()
    return jobs if live else []


def downloads(jobs: list[Job], key: str, figure: Callable[[], Any] | None = None) -> None:
    """CSV per run, all shown runs as one CSV and as a zip with configs, figure HTML, UMAP frames CSV."""
    if not jobs:
        return
    st.subheader("Downloads")
    runs = metrics_by_run(jobs)
    cols = st.columns(4)
    live = any(job.active for job in jobs)
    for index, job in enumerate(jobs):
        # a running job's CSV is made when clicked (always complete); a finished one's right away
        data = (lambda job=job: export.metrics_csv(job.metrics())) if job.active else export.metrics_csv(runs[run_label(job)])
        cols[index % 4].download_button(
            f"⬇ {run_label(job)}.csv", data, file_name=f"{job.id}.csv",
            mime="text/csv", key=f"{key}.csv.{job.id}", on_click="ignore",
        )
    cols = st.columns(4)
    everything = (lambda: export.runs_csv(metrics_by_run(jobs))) if live else export.runs_csv(runs)
    cols[0].download_button("⬇ shown runs (one CSV)", everything, file_name="runs.csv", mime="text/csv",
                            key=f"{key}.all.csv", on_click="ignore")
    cols[1].download_button("⬇ shown runs + configs (zip)", lambda: export.runs_zip(
        {run_label(job): (job.metrics(), job.config_dict, job.run_dir) for job in jobs}), file_name="runs.zip",
                            mime="application/zip", key=f"{key}.zip", on_click="ignore")
    if figure is not None:
        cols[2].download_button("⬇ figure (HTML)", lambda: export.figure_html(figure()), file_name="figure.html",
                                mime="text/html", key=f"{key}.html", on_click="ignore")
    framed = [job for job in jobs if job.frames()]
    if framed:
        job = framed[0]
        cols[3].download_button(f"⬇ UMAP frames of {run_label(job)}", lambda: export.frames_csv(job.frames(), job.points()),
                                file_name=f"{job.id}-frames.csv", mime="text/csv", key=f"{key}.framescsv", on_click="ignore")
    st.caption("PNG: use the camera icon in each chart's toolbar. HTML keeps the figure interactive (works offline).")


def device_and_seed(prefix: str) -> dict[str, Any]:
    cols = st.sidebar.columns(2)
    seed = cols[0].number_input("Seed", 0, 2**31 - 1, 0, key=f"{prefix}.seed", **KEEP)
    device = cols[1].selectbox("Device", ["auto", "cpu", "cuda"], key=f"{prefix}.device", **KEEP)
    return {"seed": int(seed), "device": device}


def encoder_choice(prefix: str) -> str | None:
    """Encoder picker: the bundled model, encoders saved in cache/encoders, or a hub id / folder."""
    from engine.encoders import list_encoders

    names = []
    with contextlib.suppress(Exception):
        names = [info.name for info in list_encoders() if not info.bundled]
    options = ["bundled (all-MiniLM-L6-v2)", *names, "other: hub id or folder"]
    choice = st.sidebar.selectbox("Encoder", options, key=f"{prefix}.encoder", **KEEP,
                                  help="The bundled model works offline. Saved encoders come from SimCSE runs.")
    if choice == options[0]:
        return None
    if choice == options[-1]:
        text = st.sidebar.text_input("Hub id or local folder", key=f"{prefix}.encoder_text", **KEEP,
                                     placeholder="e.g. bert-base-uncased or /path/to/model")
        return text.strip() or None
    return choice


def data_dir_input(prefix: str) -> str | None:
    from engine.presets import default_data_dir

    default = default_data_dir() or ""
    value = st.sidebar.text_input("Data folder (real data sets)", value=default, key=f"{prefix}.data_dir", **KEEP,
                                  help="Folder holding rt-polarity/, snli/, stsb/, wiki/ (e.g. ../shared/data).")
    return value.strip() or None


def preset_buttons(kind: str, settings: dict[str, Any]) -> None:
    """One button per preset of this kind: queues its runs on top of the current settings."""
    from engine.presets import for_kind

    found = for_kind(kind)
    if not found:
        return
    st.sidebar.markdown("**Presets**")
    for name, preset in found.items():
        if st.sidebar.button(name, key=f"{kind}.preset.{name}", help=preset.description, width="stretch"):
            with guard(f"{name}: "):
                submit_runs(kind, preset.configs(settings))
                st.rerun()
