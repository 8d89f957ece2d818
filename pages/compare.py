"""Compare runs: any finished or running runs side by side, with summaries and downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import charts
from pages import ui

METRICS = ["loss", "accuracy", "isoscore", "silhouette", "sts_spearman", "alignment", "uniformity",
           "probe_silhouette", "probe_isoscore"]


def relation_figures(runs: dict[str, pd.DataFrame]) -> list:
    """The alignment–uniformity plane and the IsoScore–silhouette scatter, for the runs that log them."""
    figures = []
    if charts.available_metrics(runs, ["alignment"]):
        figures.append(charts.align_uniform_figure(runs))
    if charts.available_metrics(runs, ["isoscore"]) and charts.available_metrics(runs, ["silhouette"]):
        figures.append(charts.iso_sil_figure(runs))
    return figures


st.title("Compare runs")
st.caption("Every run of this lab (and of the CLI, when it writes into cache/runs) can be overlaid here.")

with ui.guard():
    reg = ui.registry()
    if st.button("↻ Refresh run list", key="compare.refresh"):
        reg.attach_finished()
    table = pd.DataFrame([
        {"run": ui.run_label(job), "kind": job.kind, "state": job.state, "last step": job.last_step,
         "error": job.error or ""}
        for job in reversed(reg.jobs())
    ])
    if table.empty:
        st.info("No runs yet.")
    else:
        with st.expander(f"All runs ({len(table)})"):
            st.dataframe(table, hide_index=True)
        jobs = ui.shown_jobs(None, label="Runs to compare")
        if jobs:
            ui.live_panel(jobs, METRICS, "compare", extras=relation_figures)
            ui.downloads(jobs, "compare")
