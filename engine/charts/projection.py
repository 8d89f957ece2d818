"""The projection of a run's points: one frame, or the UMAP film with a step slider. User text (labels,
sentences) is HTML-escaped, since Plotly renders some HTML in legends and hover boxes."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.charts.figures import ChartStyle, color, plotly_text, styled
from engine.core import settings


def _hover(texts: pd.Series) -> list[str]:
    limit = settings.get("hover_chars")
    out = []
    for text in texts.astype(str):
        short = text if len(text) <= limit else text[: limit - 1] + "…"
        out.append("<br>".join(plotly_text(short[i : i + 60]) for i in range(0, len(short), 60)))
    return out


def _points_frame(coords: np.ndarray, points: pd.DataFrame | None) -> pd.DataFrame:
    n = len(coords)
    frame = pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1]})
    if points is not None and len(points) == n:
        frame["label"] = points["label"].astype(str).to_numpy()
        frame["text"] = points["text"].astype(str).to_numpy()
    else:
        frame["label"] = "points"
        frame["text"] = [f"point {i}" for i in range(n)]
    return frame


def projection_figure(
    coords: np.ndarray,
    points: pd.DataFrame | None = None,
    *,
    title: str = "",
    height: int = 460,
    style: ChartStyle | None = None,
) -> go.Figure:
    """A 2-D projection: WebGL scatter (fast for thousands of points), one colour per label, text on hover."""
    frame = _points_frame(np.asarray(coords), points)
    fig = go.Figure()
    for index, (name, group) in enumerate(frame.groupby("label", sort=True)):
        fig.add_trace(
            go.Scattergl(
                x=group["x"],
                y=group["y"],
                mode="markers",
                name=plotly_text(name),
                marker=dict(size=5, color=color(index)),
                hovertext=_hover(group["text"]),
                hoverinfo="text",
            )
        )
    _projection_layout(fig, title, height)
    return styled(fig, style)


def _projection_layout(fig: go.Figure, title: str, height: int) -> None:
    fig.update_layout(
        title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), legend=dict(itemsizing="constant")
    )
    fig.update_xaxes(showticklabels=False, title=None)
    fig.update_yaxes(showticklabels=False, title=None, scaleanchor="x", scaleratio=1)


def _frame_steps(frames: Mapping[int, np.ndarray], max_frames: int) -> list[int]:
    """The steps of ``frames`` shown: all, or ``max_frames`` of them evenly spaced (first and last kept)."""
    steps = sorted(frames)
    if len(steps) > max_frames:
        keep = np.unique(np.linspace(0, len(steps) - 1, max_frames).round().astype(int))
        steps = [steps[i] for i in keep]
    return steps


def _play_controls(steps: list[int]) -> dict:
    """Layout of an animation over ``steps``: ▶ play and ❚❚ buttons, and beside them a step slider on the
    last step (Plotly's ``updatemenus`` and ``sliders``)."""
    play = dict(
        label="▶ play",
        method="animate",
        args=[
            None,
            dict(frame=dict(duration=400, redraw=True), fromcurrent=True, transition=dict(duration=0)),
        ],
    )
    pause = dict(
        label="❚❚",
        method="animate",
        args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False))],
    )
    slider_steps = [
        dict(
            method="animate",
            label=str(s),
            args=[[str(s)], dict(mode="immediate", frame=dict(duration=0, redraw=True))],
        )
        for s in steps
    ]
    buttons = dict(
        type="buttons",
        direction="left",
        showactive=False,
        x=0.0,
        y=-0.02,
        xanchor="left",
        yanchor="top",
        buttons=[play, pause],
    )
    slider = dict(
        active=len(steps) - 1,
        steps=slider_steps,
        x=0.42,
        len=0.58,
        y=-0.02,  # beside the buttons
        currentvalue=dict(prefix="step ", xanchor="right"),
    )
    return dict(updatemenus=[buttons], sliders=[slider])


def frames_figure(
    frames: Mapping[int, np.ndarray],
    points: pd.DataFrame | None = None,
    *,
    max_frames: int = 40,
    height: int = 480,
    title: str = "UMAP frames",
    style: ChartStyle | None = None,
) -> go.Figure:
    """All UMAP frames of a run as a Plotly animation (slider + play); at most ``max_frames`` frames."""
    steps = _frame_steps(frames, max_frames)
    if not steps:
        return projection_figure(np.zeros((0, 2)), points, title=title, height=height, style=style)
    first = _points_frame(np.asarray(frames[steps[0]]), points)
    labels = sorted(first["label"].unique())
    masks = {name: (first["label"] == name).to_numpy() for name in labels}
    hovers = {name: _hover(first.loc[masks[name], "text"]) for name in labels}
    all_xy = np.concatenate([np.asarray(frames[s]) for s in steps])
    pad = 0.05 * (all_xy.max(axis=0) - all_xy.min(axis=0) + 1e-9)
    lo, hi = all_xy.min(axis=0) - pad, all_xy.max(axis=0) + pad

    def traces(step: int) -> list[go.Scattergl]:
        coords = np.asarray(frames[step])
        return [
            go.Scattergl(
                x=coords[masks[name], 0],
                y=coords[masks[name], 1],
                mode="markers",
                name=plotly_text(name),
                marker=dict(size=5, color=color(index)),
                hovertext=hovers[name],
                hoverinfo="text",
            )
            for index, name in enumerate(labels)
        ]

    fig = go.Figure(data=traces(steps[-1]), frames=[go.Frame(data=traces(s), name=str(s)) for s in steps])
    fig.update_layout(**_play_controls(steps))
    _projection_layout(fig, title, height)
    fig.update_xaxes(range=[lo[0], hi[0]], autorange=False)
    fig.update_yaxes(range=[lo[1], hi[1]], autorange=False)
    return styled(fig, style)


# ------------------------------------------------------------------------------ what a run measured
