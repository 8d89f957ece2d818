"""Compare's groups section: the groups of runs (seeds, sweeps, the claims table's setups) in
``<cache>/groups`` (:mod:`engine.groups`), each member's status read again from ``group.json`` at every rerun
(every few seconds while a member runs), a chosen measure as each cell's mean with a band
(:mod:`engine.charts.bands`), the summary (mean ± std over seeds) and CSV downloads of the summary and of the
members' metrics."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from engine import charts, groups, runlog
from engine.charts.bands import band_figure
from engine.runlog import export
from ui import runs
from ui.downloads import download

#: while a member of a listed group runs, the section redraws itself this often (seconds)
REFRESH_SECONDS = 3.0
BANDS = {"± std": "std", "min–max": "minmax"}
NOT_MEASURES = ("step", "seconds")


def group_rows(found: list[groups.Group]) -> pd.DataFrame:
    """One row per group: name, experiment, grid, and its members by status."""
    rows = []
    for group in found:
        count = groups.counts(group)
        grid = "; ".join(f"{knob}: {', '.join(map(str, values))}" for knob, values in group.grid.items())
        rows.append(
            {
                "group": group.name,
                "kind": group.kind,
                "grid": grid,
                "members": len(group.members),
                "done": count["done"],
                "failed": count["failed"],
                "running": count["running"],
                "queued": count["queued"],
            }
        )
    return pd.DataFrame(rows)


def member_frames(group: groups.Group) -> dict[str, list[tuple[str, pd.DataFrame]]]:
    """Each cell's members' metrics (cell label → [(member id, frame)]), members without rows left out."""
    dirs = groups.member_dirs(group)
    out: dict[str, list[tuple[str, pd.DataFrame]]] = {}
    for params, members in groups.cells(group):
        frames = []
        for member in members:
            frame = runlog.read_metrics(dirs[member.id])
            if not frame.empty:
                frames.append((member.id, frame))
        out[groups.cell_label(params)] = frames
    return out


def summary_table(summary: dict[str, Any]) -> pd.DataFrame:
    """The group summary flat: one row per cell and figure, ``mean ± std`` as text beside the numbers."""
    rows = []
    for cell in summary["cells"]:
        for figure, value in cell["figures"].items():
            std = value["std"]
            shown = f"{value['mean']:.4f}" + ("" if std is None else f" ± {std:.4f}")
            rows.append({"cell": cell["label"], "figure": figure, "mean ± std": shown, **value})
    return pd.DataFrame(rows, columns=["cell", "figure", "mean ± std", "mean", "std", "min", "max", "n"])


def metrics_table(frames: dict[str, list[tuple[str, pd.DataFrame]]]) -> pd.DataFrame:
    """Every member's metrics in one table, with its cell and member id first."""
    parts = [
        frame.assign(cell=cell, member=member)
        for cell, members in frames.items()
        for member, frame in members
    ]
    if not parts:
        return pd.DataFrame(columns=["cell", "member"])
    table = pd.concat(parts, ignore_index=True)
    return table[["cell", "member", *[c for c in table.columns if c not in ("cell", "member")]]]


def _measures(frames: dict[str, list[tuple[str, pd.DataFrame]]]) -> list[str]:
    found: dict[str, None] = {}
    for members in frames.values():
        for _, frame in members:
            for column in frame.columns:
                if column not in NOT_MEASURES and pd.api.types.is_numeric_dtype(frame[column]):
                    found[column] = None
    return list(found)


def _chosen_group(found: list[groups.Group]) -> groups.Group:
    names = {str(group.path): group for group in found}
    key = st.selectbox(
        "Group", list(names), format_func=lambda path: names[path].name, key="compare.group.pick"
    )
    return names[key]


def group_detail(group: groups.Group) -> None:
    """The chosen group: the band chart, the summary and the downloads."""
    frames = member_frames(group)
    measures = _measures(frames)
    if not measures:
        st.caption("No member has logged a step yet.")
        return
    first = "isoscore" if "isoscore" in measures else measures[0]
    cols = st.columns([2, 1, 1])
    measure = cols[0].selectbox(
        "Measure",
        measures,
        index=measures.index(first),
        format_func=charts.label,
        key="compare.group.measure",
    )
    band = cols[1].radio("Band", list(BANDS), horizontal=True, key="compare.group.band")
    show = cols[2].toggle("Show runs", key="compare.group.runs")
    cells = {cell: [frame for _, frame in members] for cell, members in frames.items() if members}
    figure = band_figure(cells, measure, kind=BANDS[band], show_runs=show)
    st.plotly_chart(figure, key="compare.group.chart")
    summary = groups.summarise(group, write=False)
    table = summary_table(summary)
    st.caption(f"Summary over the finished members; ± is the {summary['std']}.")
    st.dataframe(table[["cell", "figure", "mean ± std", "min", "max", "n"]], hide_index=True)
    name = group.path.name
    left, middle, right = st.columns(3)
    download(
        left,
        "group summary (CSV)",
        table.to_csv(index=False),
        file_name=f"{name}-summary.csv",
        mime="text/csv",
        key="compare.group.summary.csv",
    )
    download(
        middle,
        "members' metrics (CSV)",
        lambda: metrics_table(frames).to_csv(index=False),
        file_name=f"{name}-metrics.csv",
        mime="text/csv",
        key="compare.group.metrics.csv",
    )
    download(
        right,
        "band figure (HTML)",
        lambda: export.figure_html(figure),
        file_name=f"{name}-{measure}-band.html",
        mime="text/html",
        key="compare.group.band.html",
    )


def _draw() -> None:
    with runs.guard("Groups: "):
        found = groups.list_groups()
        if not found:
            st.caption(
                "No group yet: `python -m engine probe --seeds 0,1,2 …`, `python -m engine sweep …` or "
                "`python -m engine claims` make one."
            )
            return
        st.dataframe(group_rows(found), hide_index=True)
        group_detail(_chosen_group(found))


def groups_section() -> None:
    """Compare's groups section; it redraws itself every :data:`REFRESH_SECONDS` while a member runs."""
    st.subheader("Groups: seeds and sweeps")
    try:
        running = any(groups.counts(group)["running"] for group in groups.list_groups())
    except OSError:
        running = False
    st.fragment(_draw, run_every=REFRESH_SECONDS if running else None)()
