"""Downloads of the shown runs: a CSV per run, all as one CSV, a zip with configs, figure HTML, UMAP frames,
and the lesson to take home (one offline HTML file, :mod:`engine.replay`) with its film as a GIF."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from engine.core.errors import EmbedlabError
from engine.jobs import Job
from engine.runlog import export
from ui.runs import changing, guard, metrics_by_run, run_label
from ui.text import plain


def download(where: Any, label: str, data: Any, *, file_name: str, mime: str, key: str, **more: Any) -> None:
    """A download button in ``where`` (a column, the sidebar): its data made when clicked where ``data`` is a
    callable, no rerun on a click, the download icon; ``more``: Streamlit's other options (help, disabled)."""
    where.download_button(
        plain(label),  # a run's name in it: drawn as text (issue 55)
        data,
        file_name=file_name,
        mime=mime,
        key=key,
        on_click="ignore",
        icon=":material/download:",
        **more,
    )


def downloads(
    jobs: list[Job], key: str, figure: Callable[[], Any] | None = None, chart: str = "figure"
) -> None:
    """CSV per run, all shown runs as one CSV and as a zip with configs, the figure (named ``chart`` on its
    buttons and files) as HTML, SVG and PDF, UMAP frames CSV."""
    if not jobs:
        return
    st.subheader("Downloads")
    runs = metrics_by_run(jobs)
    cols = st.columns(4)
    live = any(job.active for job in jobs)
    for index, job in enumerate(jobs):
        # a running job's CSV is made when clicked (always complete); a finished one's right away
        data = (
            (lambda job=job: export.metrics_csv(job.rows.metrics()))
            if job.active
            else export.metrics_csv(runs[run_label(job)])
        )
        download(
            cols[index % 4],
            f"{run_label(job)}.csv",
            data,
            file_name=f"{export.file_stem(run_label(job), job.id)}.csv",
            mime="text/csv",
            key=f"{key}.csv.{job.id}",
        )
    cols = st.columns(4)
    everything = (lambda: export.runs_csv(metrics_by_run(jobs))) if live else export.runs_csv(runs)
    download(
        cols[0],
        "shown runs (one CSV)",
        everything,
        file_name="runs.csv",
        mime="text/csv",
        key=f"{key}.all.csv",
    )
    download(
        cols[1],
        "shown runs + configs (zip)",
        lambda: export.runs_zip(
            {run_label(job): (job.rows.metrics(), job.config_dict, job.run_dir) for job in jobs}
        ),
        file_name="runs.zip",
        mime="application/zip",
        key=f"{key}.zip",
    )
    if figure is not None:
        download(
            cols[2],
            f"{plain(chart)} (HTML)",
            lambda: export.figure_html(figure()),
            file_name=f"{export.file_stem(chart, 'figure')}.html",
            mime="text/html",
            key=f"{key}.html",
        )
    if figure is not None:
        image_downloads(figure, key, chart)
    framed = [job for job in jobs if job.frames()]
    if framed:
        job = framed[0]
        download(
            cols[3],
            f"UMAP frames of {run_label(job)}",
            lambda: export.frames_csv(job.frames(), job.pictures.points()),
            file_name=f"{export.file_stem(run_label(job), job.id)}-frames.csv",
            mime="text/csv",
            key=f"{key}.framescsv",
        )
    lesson_downloads(jobs, key)
    st.caption(
        "PNG: use the camera icon in each chart's toolbar. "
        "HTML keeps the figure interactive (works offline); SVG and PDF are for a paper. "
        "The lesson is one HTML file to take home: every curve, the relation figure, the UMAP film with "
        "play and a step slider, the settings and what to watch; it needs no Python, server or network."
    )


def image_downloads(figure: Callable[[], Any], key: str, chart: str = "figure") -> None:
    """The figure ``chart`` as SVG and as PDF (kaleido, made when clicked; its title and the data it was
    measured on kept), or why they cannot be made here."""
    if not export.image_export_ready():
        st.caption(export.NO_KALEIDO + ".")
        return
    cols = st.columns(4)
    for index, (fmt, mime) in enumerate(export.IMAGE_FORMATS.items()):
        download(
            cols[index],
            f"{plain(chart)} ({fmt.upper()})",
            lambda fmt=fmt: export.figure_image(figure(), fmt),
            file_name=f"{export.file_stem(chart, 'figure')}.{fmt}",
            mime=mime,
            key=f"{key}.{fmt}",
        )


def lesson_downloads(jobs: list[Job], key: str) -> None:
    """The shown runs as one offline HTML lesson, and the film of the first run that has one as a GIF.

    Both are made when clicked (in Streamlit's download thread). A film's missing frames are made from the
    snapshots only for a run whose frames nobody else is making (not running, not being projected): else the
    lesson has the frames made so far."""
    from engine import replay, runlog
    from engine.runlog import export

    folders = [job.run_dir for job in jobs]
    names = [run_label(job) for job in jobs]
    compute = [not changing(job) for job in jobs]
    to_make = film_to_make([folder for folder, flag in zip(folders, compute, strict=True) if flag], key)
    cols = st.columns(4)
    download(
        cols[0],
        "lesson to take home (HTML)",
        lambda: replay.lesson(folders, names=names, compute=compute)[0],
        file_name=f"{export.file_stem(names[0], jobs[0].id) if len(jobs) == 1 else key}-lesson.html",
        mime="text/html",
        key=f"{key}.lesson",
        help="one file that works offline: curves, film, settings, texts"
        + (f" (make the film's {to_make} frames first, above)" if to_make else ""),
        disabled=bool(to_make),
    )
    filmed = next(
        (i for i, job in enumerate(jobs) if job.frames() or runlog.list_snapshots(job.run_dir)), None
    )
    if filmed is not None:
        job = jobs[filmed]
        download(
            cols[1],
            f"UMAP film of {run_label(job)} (GIF)",
            lambda: replay.run_gif(job.run_dir, name=names[filmed], compute=compute[filmed]),
            file_name=f"{export.file_stem(names[filmed], job.id)}-film.gif",
            mime="image/gif",
            key=f"{key}.gif",
            disabled=bool(to_make) and compute[filmed],
        )


def film_to_make(folders: list, key: str) -> int:
    """Frames the lesson of ``folders`` would first make from snapshots (runs from the command line, or from
    another server, whose film nobody made): a button makes them here with a progress bar (count, rate and
    time left: about a second a frame), and the downloads wait for it. Returns how many are still to make."""
    from engine import replay
    from engine.runlog.events import Meter

    try:
        count = replay.frames_to_make(folders)
    except EmbedlabError:
        return 0  # a damaged run: the lesson's own error says which file
    if not count:
        return 0
    if st.button(
        f"Make the UMAP film first ({count} frames from the snapshots, about {count} s)",
        key=f"{key}.makefilm",
        icon=":material/movie:",
    ):
        bar, meter = st.progress(0.0, text="making the film"), Meter("making the film", "frames", every=0.5)

        def report(made: int, total: int) -> None:
            shown = meter(made, total)
            if shown is not None:
                bar.progress(min(1.0, made / total), text=shown.phase)

        with guard("Making the film"):
            replay.make_films(folders, report)
        st.rerun()
    return count
