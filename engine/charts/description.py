"""One chart description: what the app's live view and the offline replay draw, as plain data.

A description is a dict ``{"panels": [panel, ...], "step": int | None, "progress": [bar, ...],
"message": str | None}``:

- a panel is ``{"key": str, "wide": bool, "cursor": bool, "version": str | None, "figure": figure}``, where
  ``figure`` is a figure in Plotly's schema (``{"data": [traces], "layout": {...}}``): its series (traces:
  points, name, colour, width, mode, hover), its axes (titles, log or linear scale, fixed ranges, equal
  scales), its title and legend. ``wide``: the panel spans the row; ``cursor``: its x axis is the training
  step, and the description's ``step`` is marked on it (a dotted line); ``version``: a panel with the version
  already drawn is not drawn again (a projection frame, thousands of points; the live feed gives every other
  panel the hash of its figure as its version, :func:`versioned`, so that the browser skips the panels whose
  figure did not change without comparing them);
- ``step``: the current step (the replay's film frame), or None;
- a bar is ``{"fraction": float, "text": str}``: the progress of a running run;
- ``message``: a line shown above the panels where there is nothing (yet) to draw ("No metrics yet …"), or
  None.

One renderer draws it in the browser, ``engine/web/charts.js`` with Plotly.js (the live page's component
and the replay's page both load it); :func:`figure` makes the same panel a plotly.py figure for the static
views and downloads. Numbers stay NumPy arrays until :func:`plain`, which writes every numeric array as a
little-endian float64 typed array (Plotly's ``{"dtype": "f8", "bdata": base64}``: NaN and ±inf travel as
they are and are drawn as gaps), and every other value as JSON.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from engine.runlog.files import json_scalar

Panel = dict[str, Any]
Description = dict[str, Any]


def _titled(node: Mapping[str, Any]) -> dict[str, Any]:
    """``node`` (a layout or an axis) with a plain-string title as ``{"text": ...}``: Plotly.js reads only
    title objects (plotly.py converts a string itself)."""
    found = dict(node)
    if isinstance(found.get("title"), str):
        found["title"] = {"text": found["title"]}
    return found


def _figure_json(figure: go.Figure | Mapping[str, Any]) -> dict[str, Any]:
    """``figure`` as Plotly JSON without a template (the renderer and :func:`figure` style it), its titles
    as title objects."""
    found = figure.to_plotly_json() if isinstance(figure, go.Figure) else dict(figure)
    layout = _titled({key: value for key, value in (found.get("layout") or {}).items() if key != "template"})
    for axis in ("xaxis", "yaxis"):
        if isinstance(layout.get(axis), Mapping):
            layout[axis] = _titled(layout[axis])
    return {"data": list(found.get("data") or []), "layout": layout}


def panel(
    figure: go.Figure | Mapping[str, Any],
    key: str,
    *,
    wide: bool = False,
    cursor: bool = False,
    version: str | None = None,
) -> Panel:
    """A panel of ``figure`` (a plotly.py figure or its JSON, e.g. :func:`engine.charts.metric_json`)."""
    return {"key": key, "wide": wide, "cursor": cursor, "version": version, "figure": _figure_json(figure)}


def bars(progress: Iterable[tuple[float, str]] | None) -> list[dict[str, Any]]:
    """The running runs' ``(fraction, text)`` progress as the description's bars."""
    return [{"fraction": float(fraction), "text": str(text)} for fraction, text in progress or []]


def description(
    panels: list[Panel],
    *,
    step: int | None = None,
    progress: Iterable[tuple[float, str]] | None = None,
    message: str | None = None,
) -> Description:
    """The description of ``panels`` at ``step`` with the running runs' ``progress`` and a ``message``."""
    return {"panels": panels, "step": step, "progress": bars(progress), "message": message}


def figure(found: Panel, step: int | None = None) -> go.Figure:
    """The plotly.py figure of a panel (static views, downloads), its cursor at ``step`` if it has one."""
    fig = go.Figure(found["figure"])
    if found.get("cursor") and step is not None:
        fig.add_vline(x=step, line=dict(color="#d62728", width=1.5, dash="dot"))
    return fig


def typed(values: Any) -> dict[str, str]:
    """A numeric sequence as Plotly's typed array: little-endian float64, base64."""
    array = np.ascontiguousarray(np.asarray(values, dtype="<f8").ravel())
    return {"dtype": "f8", "bdata": base64.b64encode(array.tobytes()).decode("ascii")}


def _numeric(values: np.ndarray) -> bool:
    return values.dtype.kind in "iuf" and values.dtype != bool


def plain(value: Any) -> Any:
    """``value`` as JSON: numeric arrays (NumPy, pandas) as typed arrays (:func:`typed`), other arrays as
    lists, NumPy scalars as numbers, non-finite float scalars as None (JSON has no NaN)."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if hasattr(value, "to_numpy") and not isinstance(value, str):  # pandas Series, Index
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        return typed(value) if _numeric(value) else [plain(item) for item in value.tolist()]
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return json_scalar(value)


def versioned(found: Description) -> Description:
    """``found`` (a :func:`plain` description) with each panel that has no version given the hash of its
    figure (BLAKE2b of its JSON, 16 hex digits): equal figures, equal versions. The renderer redraws a panel
    only when its version (and, for a panel with a cursor, the step) changed."""
    for item in found.get("panels") or []:
        if item.get("version") is None:
            text = json.dumps(item["figure"], sort_keys=True, separators=(",", ":"), allow_nan=True)
            item["version"] = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    return found
