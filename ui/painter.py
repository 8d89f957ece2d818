"""The live canvas: a custom component (``ui/live_canvas/painter.js``) that paints running curves on <canvas>.

While a run trains, the charts are redrawn every second on the same cores as the training; painting the
plain series of the very Plotly figures the finished view shows is far cheaper for the browser than
redrawing Plotly elements. :func:`paint_spec` is the painter's schema (camelCase keys, read by painter.js):
it lives here, beside the painter, while :mod:`engine.charts` only builds Plotly figures.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit.components.v1 as components

from engine import charts

FILES = Path(__file__).resolve().with_name("live_canvas")  # index.html + painter.js, served by Streamlit
_component = components.declare_component("embedlab_live_canvas", path=str(FILES))


def bars(progress: list[tuple[float, str]] | None) -> list[dict]:
    """The running runs' ``(fraction, text)`` progress as the painter draws it (one bar each)."""
    return [{"fraction": float(fraction), "text": text} for fraction, text in progress or []]


def paint(
    panels: list[dict], key: str, progress: list[tuple[float, str]] | None = None, feed: dict | None = None
) -> None:
    """Draw ``panels`` (each from :func:`paint_spec`) as one element; half-width panels two per row. Above
    them, one bar per ``(fraction, text)`` of ``progress``: the running runs' progress, drawn here rather
    than with ``st.progress``, whose animated bar made the browser composite frames for most of every second
    (measured: ~0.075 of a core of the browser's, nearly half of what the live view cost it). ``feed``
    (:func:`ui.feed.follow`): where the canvas fetches its next panels and bars itself, and how often."""
    _component(panels=panels, progress=bars(progress), feed=feed, key=key, default=None)


def _numbers(values: object) -> list[float | None]:
    """Plain JSON numbers, 7 significant digits; NaN and ±inf become None (a gap in the line). ``values``:
    a sequence, an array, or Plotly JSON's typed array (``{"dtype": "f8", "bdata": base64, "shape": ...}``)."""
    if isinstance(values, dict) and "bdata" in values:
        values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    array = np.asarray(values if values is not None else [], dtype=float).ravel()
    return [float(f"{v:.7g}") if math.isfinite(v) else None for v in array.tolist()]  # 7 digits: float32's


def _at(node: Any, *path: str) -> Any:
    """``node.a.b`` of a Plotly object, or ``node["a"]["b"]`` of plain Plotly JSON; None where missing."""
    for name in path:
        if node is None:
            return None
        node = node.get(name) if isinstance(node, dict) else getattr(node, name, None)
    return node


def _text(value: object) -> str:
    """A title's text: a Plotly title object, a JSON title (``{"text": ...}``) or a plain string."""
    text = _at(value, "text") if not isinstance(value, str) else value
    return "" if text is None else str(text)


def _series(trace: Any, index: int) -> dict:
    marker, line = _at(trace, "marker"), _at(trace, "line")
    colour = _at(line, "color") or _at(marker, "color")
    width, opacity, size, symbol = (
        _at(line, "width"),
        _at(trace, "opacity"),
        _at(marker, "size"),
        _at(marker, "symbol"),
    )
    series = {
        "name": html.unescape(
            _at(trace, "name") or ""
        ),  # the canvas draws text as text: no HTML escapes needed
        "x": _numbers(_at(trace, "x")),
        "y": _numbers(_at(trace, "y")),
        "color": colour if isinstance(colour, str) else charts.color(index),
        "width": float(width) if width is not None else 2.0,
        "opacity": float(opacity) if opacity is not None else 1.0,
        "mode": _at(trace, "mode") or "lines",
        "size": float(size) if isinstance(size, int | float) else 6.0,
        "symbol": symbol if isinstance(symbol, str) else "circle",
        "legend": _at(trace, "showlegend") is not False,
        "hover": _at(trace, "hoverinfo") != "skip",
    }
    texts = _at(trace, "hovertext")
    if texts is not None and not isinstance(texts, str) and len(texts) == len(series["x"]):
        series["text"] = [html.unescape(str(t).replace("<br>", "\n")) for t in texts]
    return series


def paint_spec(fig: go.Figure | dict, key: str, *, wide: bool = False) -> dict:
    """The series and axes of a 2-D line/marker figure as plain data for the painter.

    ``fig``: a Plotly figure, or plain Plotly JSON (``{"data": [...], "layout": {...}}``, as
    :func:`engine.charts.metric_json` makes it without the cost of Plotly objects); both give the same panel.
    Keeps what the live view shows: per trace its points, colour, line width, opacity, mode, marker size and
    symbol, legend and hover flags, hover texts; per figure its title, axis titles, log y, height, fixed
    ranges, equal axis scales (projections), hidden tick labels, whether the legend is forced on, and its text
    sizes (the figure's font and title sizes: larger in projector mode). Traces
    without ``x``/``y`` are left out.
    """
    traces, layout = (
        (fig.get("data", []), fig.get("layout", {})) if isinstance(fig, dict) else (fig.data, fig.layout)
    )
    drawn = [trace for trace in traces if _at(trace, "x") is not None and _at(trace, "y") is not None]
    xaxis, yaxis = _at(layout, "xaxis"), _at(layout, "yaxis")
    spec = {
        "key": key,
        "title": _text(_at(layout, "title")),
        "xTitle": _text(_at(xaxis, "title")),
        "yTitle": _text(_at(yaxis, "title")),
        "logY": _at(yaxis, "type") == "log",
        "height": int(_at(layout, "height") or 280),
        "wide": wide,
        "showLegend": bool(_at(layout, "showlegend")),
        "fontSize": float(
            _at(layout, "font", "size") or 12
        ),  # projector mode: larger text (charts.PROJECTOR)
        "titleSize": float(_at(layout, "title", "font", "size") or 15),
        "equalAxes": _at(yaxis, "scaleanchor") == "x",
        "hideTicks": _at(xaxis, "showticklabels") is False and _at(yaxis, "showticklabels") is False,
        "series": [_series(trace, index) for index, trace in enumerate(drawn)],
    }
    for axis, chosen in (("x", xaxis), ("y", yaxis)):
        if _at(chosen, "autorange") is False and _at(chosen, "range") is not None:
            spec[f"{axis}Range"] = [float(v) for v in _at(chosen, "range")]
    return spec
