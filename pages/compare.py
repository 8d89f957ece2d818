"""Compare runs: any finished or running runs side by side, with summaries and downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import charts
from pages import ui

METRICS = ["loss", "accuracy", "isoscore", "silhouette", "sts_spearman", "alignment", "uniformity",
           "probe_silhouette", "probe_isoscore"]

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
            ui.live_panel(jobs, METRICS, "compare", extra=lambda runs: (
                st.plotly_chart(charts.align_uniform_figure(runs), key="compare.plane")
                if charts.available_metrics(runs, ["alignment"]) else None,
                st.plotly_chart(charts.iso_sil_figure(runs), key="compare.isosil")
                if charts.available_metrics(runs, ["isoscore"]) and charts.available_metrics(runs, ["silhouette"])
                else None,
            ))
            ui.downloads(jobs, "compare")
