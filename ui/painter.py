"""The live canvas: a custom component (``ui/live_canvas/painter.js``) that paints running curves on <canvas>.

While a run trains, the charts are redrawn every second on the same cores as the training; painting the
plain series of the very Plotly figures the finished view shows is far cheaper for the browser than
redrawing Plotly elements. :func:`paint_spec` is the painter's schema (camelCase keys, read by painter.js):
it lives here, beside the painter, while :mod:`engine.charts` only builds Plotly figures.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit.components.v1 as components

from engine import charts

FILES = Path(__file__).resolve().with_name("live_canvas")  # index.html + painter.js, served by Streamlit
_component = components.declare_component("embedlab_live_canvas", path=str(FILES))


def paint(panels: list[dict], key: str, progress: list[tuple[float, str]] | None = None) -> None:
    """Draw ``panels`` (each from :func:`paint_spec`) as one element; half-width panels two per row. Above
    them, one bar per ``(fraction, text)`` of ``progress``: the running runs' progress, drawn here rather
    than with ``st.progress``, whose animated bar made the browser composite frames for most of every second
    (measured: ~0.075 of a core of the browser's, nearly half of what the live view cost it)."""
    bars = [{"fraction": float(fraction), "text": text} for fraction, text in progress or []]
    _component(panels=panels, progress=bars, key=key, default=None)


def _numbers(values: object) -> list[float | None]:
    """Plain JSON numbers, 7 significant digits; NaN and ±inf become None (a gap in the line)."""
    array = np.asarray(values if values is not None else [], dtype=float).ravel()
    return [float(f"{v:.7g}") if math.isfinite(v) else None for v in array.tolist()]  # 7 digits: float32's


def _text(value: object) -> str:
    text = getattr(value, "text", value)
    return "" if text is None else str(text)


def _series(trace: go.Scatter | go.Scattergl, index: int) -> dict:
    marker, line = getattr(trace, "marker", None), getattr(trace, "line", None)
    colour = (line.color if line is not None else None) or (marker.color if marker is not None else None)
    series = {
        "name": html.unescape(trace.name or ""),  # the canvas draws text as text: no HTML escapes needed
        "x": _numbers(trace.x),
        "y": _numbers(trace.y),
        "color": colour if isinstance(colour, str) else charts.color(index),
        "width": float(line.width) if line is not None and line.width is not None else 2.0,
        "opacity": float(trace.opacity) if trace.opacity is not None else 1.0,
        "mode": trace.mode or "lines",
        "size": float(marker.size) if marker is not None and isinstance(marker.size, int | float) else 6.0,
        "symbol": marker.symbol if marker is not None and isinstance(marker.symbol, str) else "circle",
        "legend": trace.showlegend is not False,
        "hover": trace.hoverinfo != "skip",
    }
    texts = getattr(trace, "hovertext", None)
    if texts is not None and not isinstance(texts, str) and len(texts) == len(series["x"]):
        series["text"] = [html.unescape(str(t).replace("<br>", "\n")) for t in texts]
    return series


def paint_spec(fig: go.Figure, key: str, *, wide: bool = False) -> dict:
    """The series and axes of a 2-D line/marker figure as plain data for the painter.

    Keeps what the live view shows: per trace its points, colour, line width, opacity, mode, marker size and
    symbol, legend and hover flags, hover texts; per figure its title, axis titles, log y, height, fixed
    ranges, equal axis scales (projections), hidden tick labels, whether the legend is forced on, and its text
    sizes (the figure's font and title sizes: larger in projector mode). Traces
    without ``x``/``y`` are left out.
    """
    drawn = [trace for trace in fig.data
             if getattr(trace, "x", None) is not None and getattr(trace, "y", None) is not None]
    layout = fig.layout
    spec = {
        "key": key,
        "title": _text(layout.title),
        "xTitle": _text(layout.xaxis.title),
        "yTitle": _text(layout.yaxis.title),
        "logY": layout.yaxis.type == "log",
        "height": int(layout.height or 280),
        "wide": wide,
        "showLegend": bool(layout.showlegend),
        "fontSize": float(layout.font.size or 12),  # projector mode: larger text (engine.charts.PROJECTOR)
        "titleSize": float(layout.title.font.size or 15),
        "equalAxes": layout.yaxis.scaleanchor == "x",
        "hideTicks": layout.xaxis.showticklabels is False and layout.yaxis.showticklabels is False,
        "series": [_series(trace, index) for index, trace in enumerate(drawn)],
    }
    for axis in ("x", "y"):
        chosen = getattr(layout, f"{axis}axis")
        if chosen.autorange is False and chosen.range is not None:
            spec[f"{axis}Range"] = [float(v) for v in chosen.range]
    return spec
