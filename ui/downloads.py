"""Downloads of the shown runs: a CSV per run, all as one CSV, a zip with configs, figure HTML, UMAP frames."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from engine import export
from engine.jobs import Job
from ui.runs import metrics_by_run, run_label


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
