"""The alignment–uniformity plane with each run's path, as in SimCSE's Figure 2 (Gao et al. 2021): one line
per run from its first evaluation (an open circle) to its last (a star), arrows along it pointing the way
training went, a few points per run so that four runs stay readable on a projector. A chart description
(plain Plotly JSON), drawn by the one renderer like every figure; projector mode offers it among its choices
(:data:`engine.charts.relations.RUN_FIGURES`, ``"align_uniform_path"``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from engine.charts.figures import (
    TITLED,
    color,
    dash,
    downsample,
    numbers,
    plotly_text,
    scatter,
    titled,
    titled_layout,
)
from engine.charts.legend import legend_room
from engine.core import measures

#: the y columns of the plane: SimCSE's and JEPA's alignment, else a probe's class alignment
COLUMNS = ("alignment", "class_alignment")
#: the points of a path (its first and last kept): an arrow between each two
POINTS = 8
TITLE = "Each run's path: alignment vs uniformity (○ → ★)"


def path_points(frame: pd.DataFrame, most: int = POINTS) -> pd.DataFrame | None:
    """A run's evaluations on the plane (step, uniformity, and its alignment as ``y``), at most ``most`` of
    them, evenly spaced with the first and the last; None when it logs no alignment or uniformity."""
    column = next((c for c in COLUMNS if c in frame.columns), None)
    if column is None or not {"uniformity", "step"} <= set(frame.columns):
        return None
    points = numbers(frame, ["step", "uniformity", column]).dropna()
    if points.empty:
        return None
    return downsample(points, most).rename(columns={column: "y"})


#: each run's end marker, by its place: the runs' ends stay apart by shape as well as colour (four runs on a
#: projector, or in print)
END_SYMBOLS = ("star", "diamond", "square", "triangle-up", "hexagram", "pentagon")


def end_symbol(index: int) -> str:
    """The end marker of the run at ``index``: :data:`END_SYMBOLS` in turn."""
    return END_SYMBOLS[index % len(END_SYMBOLS)]


def path_traces(name: str, index: int, points: pd.DataFrame) -> list[dict[str, Any]]:
    """One run's path: a line with arrows on the way (each pointing from the previous point), an open circle
    at its start and its end marker (:func:`end_symbol`: a star, a diamond, … by its place), each a trace of
    its own (a marker pointing from no previous point is not drawn, and an end drawn upright keeps its
    shape: one turned with the path made a diamond a square), in the run's colour and dash."""
    count = len(points)
    sizes = [14] * max(0, count - 1) + [0]  # the last point is the end marker's
    hover = f"step %{{customdata}}<br>uniformity %{{x:.3f}}<br>alignment %{{y:.3f}}<extra>{name}</extra>"
    start, end = points.iloc[:1], points.iloc[-1:]
    return [
        scatter(
            points["uniformity"].tolist(),
            points["y"].tolist(),
            "lines+markers",
            name,
            name=name,
            line=dict(color=color(index), dash=dash(index), width=2),
            marker=dict(
                symbol="arrow",
                size=sizes,
                angleref="previous",
                color=color(index),
                opacity=1,  # Plotly draws an array of sizes at 0.7
                line=dict(width=1, color=color(index)),
            ),
            customdata=points["step"].tolist(),
            hovertemplate=hover,
        ),
        marker_trace(
            name, start, hover, symbol="circle-open", size=14, color=color(index), line=dict(width=2)
        ),
        # ringed in white, opaque, and its size a list, which a projector's style leaves as it is (scaled, the
        # ends of runs that end close together covered each other): ends that meet stay apart
        marker_trace(
            name,
            end,
            hover,
            symbol=end_symbol(index),
            size=[18],
            opacity=1,
            color=color(index),
            line=dict(width=2, color="white"),
        ),
    ]


def marker_trace(name: str, at: pd.DataFrame, hover: str, **marker: Any) -> dict[str, Any]:
    """A run's markers at the points ``at`` (a path's start or end), out of the legend."""
    xs, ys = at["uniformity"].tolist(), at["y"].tolist()
    steps = at["step"].tolist()
    return scatter(
        xs, ys, "markers", name, showlegend=False, marker=marker, customdata=steps, hovertemplate=hover
    )


def align_uniform_path_json(
    runs: Mapping[str, pd.DataFrame], *, measured_on: str | None = None, most: int = POINTS
) -> dict[str, Any] | None:
    """The plane with one path per run that logs alignment and uniformity, as plain Plotly JSON (unstyled),
    the runs' end markers drawn last (over every path); None when no run does."""
    traces, ends = [], []
    for index, (name, frame) in enumerate(runs.items()):
        points = path_points(frame, most)
        if points is not None:
            *drawn, end = path_traces(plotly_text(name), index, points)
            traces += drawn
            ends.append(end)
    if not traces:
        return None
    traces += ends
    layout = titled_layout(
        TITLED,
        titled(TITLE, measured_on),
        measures.get("uniformity").symbol,
        measures.get("alignment").symbol,
    )
    return {"data": traces, "layout": legend_room(layout, traces)}


def align_uniform_path_panel(
    runs: Mapping[str, pd.DataFrame], where: Callable[[str], str | None]
) -> dict[str, Any] | None:
    """The path figure of the shown runs, titled with where their uniformity was measured (a run figure)."""
    return align_uniform_path_json(runs, measured_on=where("uniformity"))
