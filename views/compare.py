"""Compare runs: any finished or running runs side by side, with summaries, downloads, renaming, sizes and
deletion."""

from __future__ import annotations

import streamlit as st

from engine import charts, experiments
from engine.core import measures
from engine.runlog import export
from ui import lens, live, live_state, projector, run_admin, runs
from ui.downloads import download, downloads
from ui.experiment import glossary_link
from ui.groups import groups_section

#: every measure the experiments' pages offer (engine.experiments), each experiment's in its order
METRICS = experiments.all_metrics()
#: drawn at first (the measure picker), and the relation figure's first pair
DRAWN = [
    "loss",
    "accuracy",
    "isoscore",
    "silhouette",
    "sts_spearman",
    "alignment",
    "class_alignment",
    "uniformity",
    measures.RANKME,
    charts.SPECTRUM,
]
PAIR = (charts.RELATION_FIGURES["iso_sil"].x, charts.RELATION_FIGURES["iso_sil"].y[0])
#: the run figures under the curves (engine.charts.RELATION_FIGURES): SimCSE and JEPA runs (alignment of
#: positive pairs) beside probe runs (class alignment) on the alignment–uniformity plane
FIGURES = ("align_uniform",)


def figure_download(jobs: list) -> None:
    """One figure of the compared runs as a standalone HTML page (interactive, offline); PNG: the camera icon
    of each chart's toolbar."""
    shown = lens.chart_frames(jobs)
    on = live_state.where(jobs, shown)
    figures = {
        charts.label(metric): (
            lambda metric=metric: charts.metric_figure(shown, metric, measured_on=on(metric))
        )
        for metric in charts.available_metrics(shown, METRICS)
    }
    pair = (st.session_state.get("compare.relx", PAIR[0]), st.session_state.get("compare.rely", PAIR[1]))
    found = lens.pair_figure(shown, pair, on)
    for fig in [*([found] if found is not None else []), *charts.run_figures(FIGURES, shown, on)]:
        figures[str(fig.layout.title.text).split(" (")[0]] = lambda fig=fig: fig
    if not figures:
        return
    cols = st.columns([2, 1])
    chosen = cols[0].selectbox("Figure to download", list(figures), key="compare.figure")
    download(
        cols[1],
        "figure (HTML)",
        lambda: export.figure_html(figures[chosen]()),
        file_name=f"{chosen.split(' ·')[0].lower().replace(' ', '-')}.html",
        mime="text/html",
        key="compare.figure.html",
    )
    st.caption(
        "PNG: the camera icon in each chart's toolbar. The HTML keeps the figure interactive and works "
        "offline."
    )


st.title("Compare runs")
st.caption(
    "Every run of this lab (and of the command line, when it writes into cache/runs) can be overlaid here."
)
if not projector.on():
    glossary_link()

with runs.guard():
    reg = runs.registry()
    if not projector.on() and st.button("↻ Refresh run list", key="compare.refresh"):
        reg.attach_finished()
    table = run_admin.runs_table(reg)
    if table.empty:
        st.info("No runs yet.")
    else:
        if not projector.on():
            with st.expander(f"All runs ({len(table)})"):
                st.dataframe(table, hide_index=True)
                run_admin.disk_line()
                run_admin.rename_section(reg)
                run_admin.delete_section(reg)
        jobs = runs.shown_jobs(None, label="Runs to compare")
        if jobs:
            live.live_panel(jobs, METRICS, "compare", FIGURES, drawn=DRAWN, pair=PAIR)
            if not projector.on() and not live.nothing_to_draw(jobs):
                figure_download(jobs)
                downloads(jobs, "compare")
groups_section()
