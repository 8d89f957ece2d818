"""Curves of runs and the style of every figure (colours, log axes, projector sizes); the measures' titles
come from the measure registry (:mod:`engine.core.measures`). Relation figures:
:mod:`engine.charts.relations`."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from engine.charts.coinciding import show_coinciding
from engine.charts.legend import LEGEND, legend_extra, legend_room
from engine.charts.log_axis import log_axis, positive
from engine.charts.onset_marks import onset_marks
from engine.core import measures, settings


def plotly_text(value: object) -> str:
    """User text (a run's name, a label, a sentence) for a Plotly legend, hover box or title: Plotly renders
    a subset of HTML (``<b>``, ``<a href>``) in them, so ``<``, ``>`` and ``&`` are escaped and show as
    typed."""
    return html.escape(str(value), quote=False)


PALETTE = qualitative.Plotly + qualitative.D3
X_AXES = {"step": "step", "seconds": "seconds"}
# Live charts are redrawn every second: let Plotly skip measuring every tick label (overflow checks and
# y-axis automargin, which Streamlit's theme turns on): a large share of its drawing time (CDP profile);
# the right margin leaves room for the last x label, which may now overflow the plot area.
AXIS = dict(ticklabeloverflow="allow", automargin=False)
LAYOUT = dict(margin=dict(l=50, r=25, t=62, b=72), height=300, legend=LEGEND, xaxis=AXIS, yaxis=AXIS)
TITLED = {**LAYOUT, "margin": dict(l=70, r=25, t=62, b=82), "height": 400}  # room for axis titles


@dataclass(frozen=True)
class ChartStyle:
    """Text and line sizes of a figure: ``font`` for tick labels, axis titles and legends, ``title`` for the
    figure's title, line widths and marker sizes multiplied by ``scale``, and the figure's ``height``."""

    font: int = 12
    title: int = 16
    scale: float = 1.0
    height: int | None = None
    width: int | None = None  # its plot's width where known (at least): its legend's rows are packed in it


#: a room's projector: every text at least 18 px, lines and markers twice as thick; 420 px high, so that the
#: curve and the film beside it fit a 1280×720 screen under the page's title and cards; its legend's entries
#: side by side in the plot of a half-width column of a 1280 px screen (about 440 px)
PROJECTOR = ChartStyle(font=20, title=26, scale=2.0, height=420, width=440)
#: the projector's chart alone across the screen (no film beside it): its plot about 1,000 px wide
PROJECTOR_WIDE = ChartStyle(font=20, title=26, scale=2.0, height=420, width=980)


def label(metric: str) -> str:
    """A column's title on charts, from the measure registry (:func:`engine.core.measures.chart_title`)."""
    return measures.chart_title(metric)


#: line patterns and marker symbols of the runs, by their place in a view: with the colour, a run keeps its
#: look on every panel, and runs stay apart in print and for colour-blind readers
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross")


def color(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def dash(index: int) -> str:
    """The line pattern of the run at ``index`` (solid, dash, dot, …)."""
    return DASHES[index % len(DASHES)]


def symbol(index: int) -> str:
    """The marker symbol of the run at ``index`` (circle, square, diamond, …)."""
    return SYMBOLS[index % len(SYMBOLS)]


def natural_range(metric: str) -> list[float] | None:
    """The y range a measure is drawn on by default: its natural range with a 4 % margin (so that a value
    at an end is not drawn on the frame) when the registry marks it ``fixed_range``, else None (fit to the
    data)."""
    found = measures.MEASURES.get(metric)
    if found is None or not found.fixed_range or None in found.range:
        return None
    low, high = float(found.range[0]), float(found.range[1])
    margin = 0.04 * (high - low)
    return [low - margin, high + margin]


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
    keep = kept_rows(len(frame), max_points)
    return frame if keep is None else frame.iloc[keep]


def kept_rows(n: int, max_points: int | None = None) -> np.ndarray | None:
    """The rows :func:`downsample` keeps of ``n``, or None for all of them."""
    if max_points is None:
        max_points = settings.get("chart_points")
    if n <= max_points or max_points < 2:
        return None
    return np.unique(np.linspace(0, n - 1, max_points).round().astype(int))


def _xy(frame: pd.DataFrame, metric: str, x: str) -> tuple[np.ndarray, np.ndarray]:
    """The x values (their own dtype) and float ``metric`` values of the rows where both are numbers."""
    if metric not in frame or x not in frame:
        return np.zeros(0), np.zeros(0)
    xs, ys = pd.to_numeric(frame[x], errors="coerce"), pd.to_numeric(frame[metric], errors="coerce")
    keep = (xs.notna() & ys.notna()).to_numpy()
    return xs.to_numpy()[keep], ys.to_numpy(dtype=float)[keep]


def metric_figure(
    runs: Mapping[str, pd.DataFrame], metric: str, *, style: ChartStyle | None = None, **options: Any
) -> go.Figure:
    """One metric over steps (or seconds), one line per run; a faint raw line behind a smoothed one:
    :func:`metric_json` (``options``: its ``x``, ``smoothing``, ``log_y``, ``max_points``, ``height``,
    ``measured_on``) made into Plotly objects in one ``go.Figure(...)`` call, then styled."""
    return styled(go.Figure(metric_json(runs, metric, **options)), style)


def metric_json(
    runs: Mapping[str, pd.DataFrame],
    metric: str,
    *,
    x: str = "step",
    smoothing: float = 0.0,
    log_y: bool | None = None,
    max_points: int | None = None,
    height: int = 300,
    measured_on: str | None = None,
    baseline: float | Sequence[float] | None = None,
    zoom: bool = False,
) -> dict[str, Any]:
    """:func:`metric_figure`'s figure, unstyled, as plain Plotly JSON (``{"data": [...], "layout": {...}}``,
    NumPy arrays for the series). ``measured_on`` names the data the metric was measured on (in the title,
    e.g. "on the built-in demo pairs"); ``log_y`` None: the measure's scale in the registry; a log y axis
    gets tick labels that read as numbers (:func:`log_ticks`). ``baseline``: a dashed horizontal reference
    line at that value, or one at each of those values (for ``sts_spearman``, the run summaries'
    ``sts_baseline``: the untouched encoder at its native pooling, engine.simcse.baseline;
    :func:`baselines`). The live view draws it every second (a chart
    description's panel), where making and validating the Plotly objects took most of the figure's time.
    A measure with a natural range (:func:`natural_range`) is drawn on it unless ``zoom`` (fit to the data);
    each run has its colour and line pattern (:func:`color`, :func:`dash`) by its place in ``runs``; a curve
    on an earlier one is drawn dashed with markers (:mod:`~engine.charts.coinciding`), and each run's
    collapse onset is marked over steps (:mod:`~engine.charts.onset_marks`)."""
    traces: list[dict[str, Any]] = []
    for index, (name, frame) in enumerate(runs.items()):
        name = plotly_text(name)  # a run's name as typed, never markup
        steps, values = _xy(frame, metric, x)
        if not len(steps):
            continue
        smooth = ema(values, smoothing)
        keep = kept_rows(len(values), max_points)
        if keep is not None:
            steps, values, smooth = steps[keep], values[keep], smooth[keep]
        mode = "lines" if len(steps) > 1 else "markers"
        if smoothing > 0:
            traces.append(
                scatter(
                    steps,
                    values,
                    mode,
                    name,
                    line=dict(color=color(index), width=1, dash=dash(index)),
                    opacity=0.3,
                    name=f"{name} (raw)",
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
        traces.append(
            scatter(
                steps,
                smooth,
                mode,
                name,
                line=dict(color=color(index), width=2, dash=dash(index)),
                marker=dict(color=color(index), symbol=symbol(index)),
                name=name,
            )
        )
    layout = titled_layout(LAYOUT, titled(label(metric), measured_on), X_AXES.get(x, x), height=height)
    if log_y is None:  # the measure's own scale (engine.core.measures)
        log_y = metric in measures.MEASURES and measures.get(metric).scale == "log"
    if log_y:
        layout["yaxis"] = {**layout["yaxis"], "type": "log", **log_axis(positive([t["y"] for t in traces]))}
    elif not zoom and natural_range(metric) is not None:
        layout["yaxis"] = {**layout["yaxis"], "range": natural_range(metric), "autorange": False}
    lines = baseline_lines(baseline)
    if x == "step":  # collapse, seen coming: each run's onset step marked on every curve over steps
        marks = onset_marks(runs, {plotly_text(name): color(i) for i, name in enumerate(runs)})
        lines = {key: lines[key] + marks[key] for key in lines}
    if lines["shapes"]:
        layout.update(lines)
    traces = show_coinciding(traces)
    return {"data": traces, "layout": legend_room(layout, traces)}


#: the reference line's label (an untouched encoder's STS at its native pooling), short: in projector mode's
#: 20 px text a longer one ran across the plot onto the y axis's tick labels; the pooling is in its hover
BASELINE_TEXT = "untouched encoder: {value:.3f}"
BASELINE_HOVER = "the untouched encoder's STS Spearman at its native pooling: {value:.3f}"


def baseline_lines(values: float | Sequence[float] | None) -> dict[str, list[dict[str, Any]]]:
    """Plotly ``shapes`` and ``annotations``: a dashed grey line across the plot at each distinct finite
    value, labelled as the untouched encoder's score (:data:`BASELINE_TEXT`)."""
    if values is None:
        return {"shapes": [], "annotations": []}
    found = [values] if isinstance(values, int | float) else list(values)
    distinct = sorted({round(float(v), 6) for v in found if v is not None and math.isfinite(float(v))})
    dashed = dict(color="gray", dash="dash", width=1.5)
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=v, y1=v, line=dashed) for v in distinct]
    notes = [
        dict(
            xref="paper",
            x=1,
            y=v,
            text=BASELINE_TEXT.format(value=v),
            hovertext=BASELINE_HOVER.format(value=v),
            showarrow=False,
            xanchor="right",
            yanchor="bottom",
            font=dict(color="gray"),
        )
        for v in distinct
    ]
    return {"shapes": shapes, "annotations": notes}


def baselines(summaries: Sequence[Mapping[str, Any] | None], metric: str) -> list[float]:
    """The reference values of ``metric`` in the runs' summaries: for ``sts_spearman``, each summary's
    ``sts_baseline`` (the untouched encoder at its native pooling); none for other measures."""
    if metric != "sts_spearman":
        return []
    found = []
    for summary in summaries:
        value = (summary or {}).get("sts_baseline")
        if isinstance(value, int | float) and math.isfinite(value):
            found.append(float(value))
    return found


def titled(title: str, measured_on: str | None) -> str:
    """A figure title with the data it was measured on, on a second, smaller line (one line would run past
    a half-width chart at 1366 px: the e2e viewport test reads every title's box)."""
    return f"{title}<br><sup>on {measured_on}</sup>" if measured_on else title


def titled_layout(
    base: dict[str, Any],
    title: str,
    x_title: str,
    y_title: str | None = None,
    *,
    y: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """``base`` (:data:`LAYOUT` or :data:`TITLED`) with a title, axis titles and ``y`` axis settings, as one
    dict for ``go.Figure(data=..., layout=...)``: one validation in the constructor, where ``update_layout``
    afterwards took 40 % of a live refresh's figure-building time (its batch-update path)."""
    layout = {**base, "title": title, **extra, "xaxis": {**base["xaxis"], "title": x_title}}
    if y_title is not None or y:
        layout["yaxis"] = {**base["yaxis"], **({} if y_title is None else {"title": y_title}), **(y or {})}
    return layout


def styled(fig: go.Figure, style: ChartStyle | None) -> go.Figure:
    """``fig`` with the text sizes, line widths, marker sizes and height of ``style`` (None: unchanged); the
    margins grow with the text. Animation frames get the same marker sizes."""
    if style is None:
        return fig
    font, scale = style.font, style.scale
    grow = font / 12
    margin = fig.layout.margin
    under = fig.layout.legend.orientation == "h"
    extra = legend_extra(fig.data, font=font, width=style.width) if under else 0
    if under and style.width and margin.b is not None:  # the legend's rows as packed, not one per entry
        margin.b = max(margin.b - legend_extra(fig.data), 40) + extra
    fig.update_layout(
        font=dict(size=font),
        title_font_size=style.title,
        legend_font_size=font,
        hoverlabel_font_size=font,
        margin=dict(
            l=round((margin.l or 50) * grow),
            r=round((margin.r or 25) * grow),
            t=round((margin.t or 40) * style.title / 16),
            b=round((margin.b or 40) * grow),
        ),
    )
    if style.height is not None:  # a legend's rows under the plot past the first kept, in the style's size
        fig.update_layout(height=style.height + round(extra * grow))
    fig.update_xaxes(title_font_size=font, tickfont_size=font)
    fig.update_yaxes(title_font_size=font, tickfont_size=font)
    for trace in [*fig.data, *(t for frame in fig.frames for t in frame.data)]:
        _scale_trace(trace, scale)
    for menu in fig.layout.updatemenus:
        menu.font = dict(size=font)
    for slider in fig.layout.sliders:
        slider.font = dict(size=font)
        slider.currentvalue.font = dict(size=font)
    return fig


def _scale_trace(trace: Any, scale: float) -> None:
    line, marker = getattr(trace, "line", None), getattr(trace, "marker", None)
    mode = getattr(trace, "mode", None) or "lines"
    if line is not None and "lines" in mode:
        line.width = (line.width if line.width is not None else 2.0) * scale
    if marker is not None and isinstance(marker.size, int | float):
        marker.size = marker.size * scale
    elif marker is not None and marker.size is None and "markers" in mode:
        marker.size = 6 * scale


def available_metrics(runs: Mapping[str, pd.DataFrame], candidates: list[str]) -> list[str]:
    """The candidate columns that hold at least one number in at least one run."""
    found = []
    for metric in candidates:
        for frame in runs.values():
            if metric in frame and holds_numbers(frame[metric]):
                found.append(metric)
                break
    return found


def holds_numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds at least one number (NaN is none; text that reads as a number is one). The
    live feed asks this of every shown measure of every run every second: a float or integer column is
    answered from its NumPy values, only other columns go through ``pd.to_numeric``."""
    values = column.to_numpy()
    if values.dtype.kind in "iub":
        return values.size > 0
    if values.dtype.kind == "f":
        return bool((~np.isnan(values)).any())
    return bool(pd.to_numeric(column, errors="coerce").notna().any())


def numbers(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame``'s ``columns`` as numbers, what does not read as one as NaN: the frame's own columns when all
    are numeric already (the metrics files' usual case), else each through ``pd.to_numeric``."""
    picked = frame[list(columns)]
    if all(pd.api.types.is_numeric_dtype(dtype) for dtype in picked.dtypes):
        return picked
    return picked.apply(pd.to_numeric, errors="coerce")


def scatter(x: Any, y: Any, mode: str, group: str, **style: Any) -> dict[str, Any]:
    """A scatter trace (Plotly JSON) of ``x`` against ``y`` in the legend group ``group`` (a run's traces
    toggle together); ``style``: its name, line, marker, hover and the rest."""
    return dict(type="scatter", x=x, y=y, mode=mode, legendgroup=group, **style)
