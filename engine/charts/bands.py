"""A group of runs (the seeds of one setting) drawn as its mean with a band: ± one standard deviation, or the
range from the smallest to the largest run, on the steps that every run has logged; the runs themselves can
be drawn thin behind it. One colour per cell (a setting of a group: the seeds of the same parameters).

The band is taken over the steps that all of a cell's runs have a finite value at (a run that stopped early,
or a measure logged on some steps only, narrows the steps, never the runs). ``std`` is the sample standard
deviation (``ddof=1``, as for seeds drawn from all possible seeds; 0 for a single run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import hex_to_rgb

from engine.charts.figures import LAYOUT, X_AXES, color, label, plotly_text, scatter, titled, titled_layout

#: the band's kinds: mean ± one sample standard deviation, or min–max over the runs
BAND_KINDS = ("std", "minmax")
BAND_OPACITY = 0.2
RUN_OPACITY = 0.35


@dataclass(frozen=True)
class Band:
    """A cell's ``metric`` on its shared ``steps``: the ``mean`` over its ``runs`` runs, and the band from
    ``low`` to ``high``."""

    steps: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    runs: int


def _series(frame: pd.DataFrame, metric: str, x: str) -> pd.Series:
    """``metric`` indexed by ``x``, finite values only (the last one where a step repeats)."""
    if metric not in frame or x not in frame:
        return pd.Series(dtype=float)
    xs = pd.to_numeric(frame[x], errors="coerce")
    ys = pd.to_numeric(frame[metric], errors="coerce").astype(float)
    keep = xs.notna() & np.isfinite(ys)
    series = pd.Series(ys[keep].to_numpy(), index=xs[keep].to_numpy())
    return series[~series.index.duplicated(keep="last")].sort_index()


def band_of(frames: Sequence[pd.DataFrame], metric: str, *, x: str = "step", kind: str = "std") -> Band:
    """The mean of ``metric`` over ``frames`` (runs' metrics, as :func:`engine.runlog.read_metrics` gives
    them) at the ``x`` values where every run has a finite value, and its band: mean ± sample std
    (``kind="std"``) or the runs' min and max (``"minmax"``)."""
    if kind not in BAND_KINDS:
        raise ValueError(f"band kind must be one of {', '.join(BAND_KINDS)}, not {kind!r}")
    series = [_series(frame, metric, x) for frame in frames]
    if not series:
        empty = np.zeros(0)
        return Band(empty, empty, empty, empty, 0)
    shared = series[0].index
    for one in series[1:]:
        shared = shared.intersection(one.index)
    shared = shared.sort_values()
    values = np.vstack([one.loc[shared].to_numpy(dtype=float) for one in series]) if len(shared) else None
    if values is None:
        empty = np.zeros(0)
        return Band(empty, empty, empty, empty, len(series))
    mean = values.mean(axis=0)
    if kind == "minmax":
        low, high = values.min(axis=0), values.max(axis=0)
    else:
        spread = values.std(axis=0, ddof=1) if len(series) > 1 else np.zeros(len(shared))
        low, high = mean - spread, mean + spread
    return Band(shared.to_numpy(), mean, low, high, len(series))


def _fill(index: int) -> str:
    red, green, blue = hex_to_rgb(color(index))
    return f"rgba({red}, {green}, {blue}, {BAND_OPACITY})"


def band_traces(
    name: str,
    frames: Sequence[pd.DataFrame],
    metric: str,
    index: int,
    *,
    x: str = "step",
    kind: str = "std",
    show_runs: bool = False,
    short_name: bool = False,
) -> list[dict[str, Any]]:
    """One cell's traces, in drawing order: its runs thin (``show_runs``), the band's lower edge, its upper
    edge filled down to it (``fill="tonexty"``), and the mean on top; all in the cell's colour. The mean's
    legend entry is ``name (mean of N, ± std)``, or ``name`` alone (``short_name``: said elsewhere)."""
    band = band_of(frames, metric, x=x, kind=kind)
    traces: list[dict[str, Any]] = []
    hue = color(index)
    if show_runs:
        for number, frame in enumerate(frames):
            one = _series(frame, metric, x)
            traces.append(
                dict(
                    type="scatter",
                    x=one.index.to_numpy(),
                    y=one.to_numpy(),
                    mode="lines",
                    line=dict(color=hue, width=1),
                    opacity=RUN_OPACITY,
                    name=f"{name} · run {number + 1}",
                    legendgroup=name,
                    showlegend=False,
                )
            )
    if not len(band.steps):
        return traces
    edge = dict(color=hue, width=0)
    what = "± std" if kind == "std" else "min–max"
    hidden = dict(line=edge, showlegend=False, hoverinfo="skip")
    traces.append(scatter(band.steps, band.low, "lines", name, name=f"{name} · low", **hidden))
    traces.append(
        scatter(
            band.steps,
            band.high,
            "lines",
            name,
            name=f"{name} · {what}",
            fill="tonexty",
            fillcolor=_fill(index),
            **hidden,
        )
    )
    traces.append(
        scatter(
            band.steps,
            band.mean,
            "lines" if len(band.steps) > 1 else "markers",
            name,
            line=dict(color=hue, width=2),
            name=name if short_name else f"{name} (mean of {band.runs}, {what})",
        )
    )
    return traces


def band_json(
    cells: Mapping[str, Sequence[pd.DataFrame]],
    metric: str,
    *,
    x: str = "step",
    kind: str = "std",
    show_runs: bool = False,
    height: int = 300,
    measured_on: str | None = None,
    short_names: bool = False,
) -> dict[str, Any]:
    """Every cell's mean and band of ``metric`` (``cells``: a cell's name → its runs' metrics frames) as plain
    Plotly JSON (``{"data": [...], "layout": {...}}``), one colour per cell; ``short_names``: its legend
    names each cell alone (:func:`band_traces`)."""
    traces: list[dict[str, Any]] = []
    for index, (name, frames) in enumerate(cells.items()):
        shown = plotly_text(name)
        traces += band_traces(
            shown, frames, metric, index, x=x, kind=kind, show_runs=show_runs, short_name=short_names
        )
    layout = titled_layout(LAYOUT, titled(label(metric), measured_on), X_AXES.get(x, x), height=height)
    return {"data": traces, "layout": layout}


def band_figure(cells: Mapping[str, Sequence[pd.DataFrame]], metric: str, **options: Any) -> go.Figure:
    """:func:`band_json` as a ``go.Figure``."""
    return go.Figure(band_json(cells, metric, **options))
