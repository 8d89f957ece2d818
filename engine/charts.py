"""Plotly figures of runs: pure functions of DataFrames (no streamlit), used by the app and scripts.

Conventions follow what people expect from training dashboards (TensorBoard, W&B): runs overlaid with
one colour each, EMA smoothing with the raw series faint behind it, log-y, step or wall-time x axis, and
long series downsampled before they are sent to the browser.

- :func:`ema` — TensorBoard's debiased exponential moving average:
  ``m_t = w·m_{t-1} + (1-w)·x_t``, shown as ``m_t / (1 - w^t)`` (NaN cells are skipped).
- :func:`align_uniform_figure` — SimCSE Figure 2 (Gao et al. 2021): ``l_uniform`` on x, ``l_align`` on y,
  one trajectory per run (Wang & Isola 2020; lower is better on both axes).
- :func:`iso_sil_figure` — the isotropy paper's Figure 3 (Mickus et al. 2024): IsoScore vs silhouette, one
  point per logged step, with Pearson r and Spearman ρ of the two series.

Only Plotly figures: the app's live canvas paints running curves from these very figures (its painter's
schema lives beside the painter, in ``ui/painter.py``).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from engine import settings

PALETTE = qualitative.Plotly + qualitative.D3
X_AXES = {"step": "step", "seconds": "seconds"}
LABELS = {
    "loss": "Training loss",
    "accuracy": "Accuracy",
    "isoscore": "IsoScore",
    "silhouette": "Silhouette",
    "alignment": "Alignment (lower is better)",
    "uniformity": "Uniformity (lower is better)",
    "sts_spearman": "STS Spearman ρ",
    "probe_silhouette": "Probe silhouette",
    "probe_isoscore": "Probe IsoScore",
    "seconds": "Seconds",
    "eval_seconds": "Evaluation seconds",
}
# Live charts are redrawn every second: let Plotly skip measuring every tick label (overflow checks and
# y-axis automargin, which Streamlit's theme turns on): a large share of its drawing time (CDP profile);
# the right margin leaves room for the last x label, which may now overflow the plot area.
AXIS = dict(ticklabeloverflow="allow", automargin=False)
LAYOUT = dict(margin=dict(l=50, r=25, t=40, b=40), height=280, legend=dict(orientation="h", y=-0.25),
              xaxis=AXIS, yaxis=AXIS)
TITLED = {**LAYOUT, "margin": dict(l=70, r=25, t=40, b=55), "height": 380}  # room for the axis titles


def label(metric: str) -> str:
    """Display name of a metric column."""
    return LABELS.get(metric, metric.replace("_", " ").capitalize())


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def ema(values: pd.Series | np.ndarray, weight: float) -> np.ndarray:
    """Debiased EMA with smoothing ``weight`` in [0, 1) (0 = raw); NaNs stay NaN and are skipped."""
    x = np.asarray(values, dtype=float)
    if weight <= 0 or len(x) == 0:
        return x.copy()
    weight = min(float(weight), 0.999)
    out = np.full_like(x, np.nan)
    mean, count = 0.0, 0
    for i, value in enumerate(x):
        if not math.isfinite(value):
            continue
        count += 1
        mean = weight * mean + (1 - weight) * value
        out[i] = mean / (1 - weight**count)
    return out


def downsample(frame: pd.DataFrame, max_points: int | None = None) -> pd.DataFrame:
    """At most ``max_points`` (default: the setting ``chart_points``) evenly spaced rows, always keeping the
    first and the last."""
    if max_points is None:
        max_points = settings.get("chart_points")
    n = len(frame)
    if n <= max_points or max_points < 2:
        return frame
    keep = np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
    return frame.iloc[keep]


def _series(frame: pd.DataFrame, metric: str, x: str) -> pd.DataFrame:
    if metric not in frame or x not in frame:
        return pd.DataFrame(columns=[x, metric])
    out = frame[[x, metric]].apply(pd.to_numeric, errors="coerce").dropna()
    return out


def metric_figure(
    runs: Mapping[str, pd.DataFrame],
    metric: str,
    *,
    x: str = "step",
    smoothing: float = 0.0,
    log_y: bool = False,
    max_points: int | None = None,
    height: int = 280,
) -> go.Figure:
    """One metric over steps (or seconds), one line per run; a faint raw line behind a smoothed one."""
    fig = go.Figure()
    for index, (name, frame) in enumerate(runs.items()):
        series = _series(frame, metric, x)
        if series.empty:
            continue
        values = series[metric].to_numpy(dtype=float)
        smooth = ema(values, smoothing)
        shown = downsample(pd.DataFrame({"x": series[x].to_numpy(), "raw": values, "smooth": smooth}), max_points)
        mode = "lines" if len(shown) > 1 else "markers"
        if smoothing > 0:
            fig.add_trace(go.Scatter(
                x=shown["x"], y=shown["raw"], mode=mode, line=dict(color=color(index), width=1), opacity=0.3,
                name=f"{name} (raw)", legendgroup=name, showlegend=False, hoverinfo="skip",
            ))
        fig.add_trace(go.Scatter(
            x=shown["x"], y=shown["smooth"], mode=mode, line=dict(color=color(index), width=2), name=name,
            legendgroup=name,
        ))
    fig.update_layout(title=label(metric), xaxis_title=X_AXES.get(x, x), **{**LAYOUT, "height": height})
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def available_metrics(runs: Mapping[str, pd.DataFrame], candidates: list[str]) -> list[str]:
    """The candidate columns that hold at least one number in at least one run."""
    found = []
    for metric in candidates:
        for frame in runs.values():
            if metric in frame and pd.to_numeric(frame[metric], errors="coerce").notna().any():
                found.append(metric)
                break
    return found


def align_uniform_figure(runs: Mapping[str, pd.DataFrame], *, max_points: int = 400) -> go.Figure:
    """SimCSE Figure 2: ``l_uniform`` (x) vs ``l_align`` (y), one trajectory per run, the last step marked."""
    fig = go.Figure()
    for index, (name, frame) in enumerate(runs.items()):
        if not {"alignment", "uniformity", "step"} <= set(frame.columns):
            continue
        points = frame[["step", "uniformity", "alignment"]].apply(pd.to_numeric, errors="coerce").dropna()
        if points.empty:
            continue
        points = downsample(points, max_points)
        fig.add_trace(go.Scatter(
            x=points["uniformity"], y=points["alignment"], mode="lines+markers", name=name, legendgroup=name,
            line=dict(color=color(index)), marker=dict(size=5), customdata=points["step"],
            hovertemplate="step %{customdata}<br>uniformity %{x:.3f}<br>alignment %{y:.3f}<extra>" + name + "</extra>",
        ))
        last = points.iloc[-1]
        fig.add_trace(go.Scatter(
            x=[last["uniformity"]], y=[last["alignment"]], mode="markers", legendgroup=name, showlegend=False,
            marker=dict(color=color(index), size=13, symbol="star"), hoverinfo="skip",
        ))
    fig.update_layout(
        title="Alignment vs uniformity (SimCSE Fig. 2; lower-left is better)",
        xaxis_title="l_uniform", yaxis_title="l_align", **TITLED,
    )
    return fig


def correlations(frame: pd.DataFrame, x: str = "isoscore", y: str = "silhouette") -> tuple[float, float] | None:
    """Pearson r and Spearman ρ of two metric series (rows where both are present), or None (< 3 rows)."""
    from engine.metrics import series_correlation

    if x not in frame or y not in frame:
        return None
    both = frame[[x, y]].apply(pd.to_numeric, errors="coerce").dropna()
    if len(both) < 3 or both[x].nunique() < 2 or both[y].nunique() < 2:
        return None
    r, rho = series_correlation(both[x].to_numpy(), both[y].to_numpy())
    return float(r), float(rho)


def iso_sil_figure(
    runs: Mapping[str, pd.DataFrame], *, x: str = "isoscore", y: str = "silhouette", max_points: int = 800
) -> go.Figure:
    """IsoScore (x) vs silhouette (y) per logged step, one colour per run, r and ρ in the legend."""
    fig = go.Figure()
    for index, (name, frame) in enumerate(runs.items()):
        if x not in frame or y not in frame:
            continue
        points = frame[[c for c in ("step", x, y) if c in frame]].apply(pd.to_numeric, errors="coerce").dropna()
        if points.empty:
            continue
        corr = correlations(frame, x, y)
        legend = name if corr is None else f"{name}: r = {corr[0]:.3f}, ρ = {corr[1]:.3f}"
        points = downsample(points, max_points)
        fig.add_trace(go.Scatter(
            x=points[x], y=points[y], mode="markers", name=legend, marker=dict(color=color(index), size=6),
            customdata=points.get("step"),
            hovertemplate="step %{customdata}<br>" + f"{label(x)} %{{x:.4f}}<br>{label(y)} %{{y:.4f}}<extra></extra>",
        ))
    fig.update_layout(
        title="IsoScore vs silhouette (Mickus et al. 2024, Fig. 3)", xaxis_title=label(x), yaxis_title=label(y),
        **TITLED, showlegend=True,  # the legend carries r and ρ, also for a single run
    )
    return fig


def _text(value: object) -> str:
    """User text (a label, a sentence) for a Plotly legend or hover box: Plotly renders a subset of HTML
    (``<i>``, ``<a href>``) in them, so ``<``, ``>`` and ``&`` are escaped and show as typed."""
    return html.escape(str(value), quote=False)


def _hover(texts: pd.Series) -> list[str]:
    limit = settings.get("hover_chars")
    out = []
    for text in texts.astype(str):
        short = text if len(text) <= limit else text[: limit - 1] + "…"
        out.append("<br>".join(_text(short[i:i + 60]) for i in range(0, len(short), 60)))
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
    coords: np.ndarray, points: pd.DataFrame | None = None, *, title: str = "", height: int = 460
) -> go.Figure:
    """A 2-D projection: WebGL scatter (fast for thousands of points), one colour per label, text on hover."""
    frame = _points_frame(np.asarray(coords), points)
    fig = go.Figure()
    for index, (name, group) in enumerate(frame.groupby("label", sort=True)):
        fig.add_trace(go.Scattergl(
            x=group["x"], y=group["y"], mode="markers", name=_text(name), marker=dict(size=5, color=color(index)),
            hovertext=_hover(group["text"]), hoverinfo="text",
        ))
    _projection_layout(fig, title, height)
    return fig


def _projection_layout(fig: go.Figure, title: str, height: int) -> None:
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=40, b=10), legend=dict(itemsizing="constant"))
    fig.update_xaxes(showticklabels=False, title=None)
    fig.update_yaxes(showticklabels=False, title=None, scaleanchor="x", scaleratio=1)


def frames_figure(
    frames: Mapping[int, np.ndarray], points: pd.DataFrame | None = None, *, max_frames: int = 40,
    height: int = 480, title: str = "UMAP frames",
) -> go.Figure:
    """All UMAP frames of a run as a Plotly animation (slider + play); at most ``max_frames`` frames."""
    steps = sorted(frames)
    if len(steps) > max_frames:
        keep = np.unique(np.linspace(0, len(steps) - 1, max_frames).round().astype(int))
        steps = [steps[i] for i in keep]
    if not steps:
        return projection_figure(np.zeros((0, 2)), points, title=title, height=height)
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
                x=coords[masks[name], 0], y=coords[masks[name], 1], mode="markers", name=_text(name),
                marker=dict(size=5, color=color(index)), hovertext=hovers[name], hoverinfo="text",
            )
            for index, name in enumerate(labels)
        ]

    fig = go.Figure(data=traces(steps[-1]), frames=[go.Frame(data=traces(s), name=str(s)) for s in steps])
    slider_steps = [
        dict(method="animate", label=str(s), args=[[str(s)], dict(mode="immediate", frame=dict(duration=0, redraw=True))])
        for s in steps
    ]
    fig.update_layout(
        updatemenus=[dict(
            type="buttons", direction="left", showactive=False, x=0.0, y=-0.02, xanchor="left", yanchor="top",
            buttons=[
                dict(label="▶ play", method="animate",
                     args=[None, dict(frame=dict(duration=400, redraw=True), fromcurrent=True, transition=dict(duration=0))]),
                dict(label="❚❚", method="animate",
                     args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False))]),
            ],
        )],
        sliders=[dict(active=len(steps) - 1, steps=slider_steps, x=0.42, len=0.58, y=-0.02,  # beside the buttons
                      currentvalue=dict(prefix="step ", xanchor="right"))],
    )
    _projection_layout(fig, title, height)
    fig.update_xaxes(range=[lo[0], hi[0]], autorange=False)
    fig.update_yaxes(range=[lo[1], hi[1]], autorange=False)
    return fig
