"""Compare runs: any finished or running runs side by side, with summaries and downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import charts
from ui import live, navigation, runs
from ui.downloads import downloads

METRICS = ["loss", "accuracy", "isoscore", "silhouette", "sts_spearman", "alignment", "uniformity",
           "probe_silhouette", "probe_isoscore"]


def relation_figures(shown: dict[str, pd.DataFrame]) -> list:
    """The alignment–uniformity plane and the IsoScore–silhouette scatter, for the runs that log them."""
    figures = []
    if charts.available_metrics(shown, ["alignment"]):
        figures.append(charts.align_uniform_figure(shown))
    if charts.available_metrics(shown, ["isoscore"]) and charts.available_metrics(shown, ["silhouette"]):
        figures.append(charts.iso_sil_figure(shown))
    return figures


navigation.ensure_app()
st.title("Compare runs")
st.caption("Every run of this lab (and of the CLI, when it writes into cache/runs) can be overlaid here.")

with runs.guard():
    reg = runs.registry()
    if st.button("↻ Refresh run list", key="compare.refresh"):
        reg.attach_finished()
    table = pd.DataFrame([
        {"run": runs.run_label(job), "kind": job.kind, "state": job.state, "last step": job.last_step,
         "error": job.error or ""}
        for job in reversed(reg.jobs())
    ])
    if table.empty:
        st.info("No runs yet.")
    else:
        with st.expander(f"All runs ({len(table)})"):
            st.dataframe(table, hide_index=True)
        jobs = runs.shown_jobs(None, label="Runs to compare")
        if jobs:
            live.live_panel(jobs, METRICS, "compare", extras=relation_figures)
            downloads(jobs, "compare")
