"""The lesson's charts as chart descriptions (:mod:`engine.charts.description`): every metric curve with the
film's cursor, the relation figures with the film's ring, and the covariance spectrum. The page's script draws
them with the one renderer (``engine/web/charts.js``) and moves the cursors and rings with the film.

Built from the page's data (:func:`engine.replay.payload.payload`): the numbers stay the base64 typed arrays
they are there (``{"dtype": "f8", "bdata": ...}``, which Plotly.js reads), so they are not written twice.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from engine import charts
from engine.charts import description

FONT = {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif", "size": 12}
CURSOR = "#d62728"
#: a run's curve is drawn with markers while it has at most this many points
MARKERS_UP_TO = 60


def _typed(text: str) -> dict[str, str]:
    return {"dtype": "f8", "bdata": text}


def _values(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8")


def _span(arrays: list[np.ndarray]) -> list[float] | None:
    """The x range of curves over ``arrays`` of steps (2 % and at least half a step of room)."""
    found = np.concatenate(arrays) if arrays else np.zeros(0)
    found = found[np.isfinite(found)]
    if not len(found):
        return None
    low, high = float(found.min()), float(found.max())
    pad = max((high - low) * 0.02, 0.5)
    return [low - pad, high + pad]


def first_step(data: dict[str, Any]) -> int | None:
    """The step of the film's first frame (the cursors' start), None without a film."""
    films = [run["film"] for run in data["runs"] if run["film"]]
    return films[0]["steps"][0] if films else None


def curves(data: dict[str, Any]) -> description.Description:
    """A panel per metric (key: the metric's column), one line per run that logged it (its colour and dash),
    the cursor on; a measure with a natural range drawn on it, the STS curves with the untouched encoder's
    score as a labelled reference line (the runs' ``baselines``)."""
    film_steps = [np.asarray(run["film"]["steps"], dtype=float) for run in data["runs"] if run["film"]]
    panels = []
    for metric in data["metrics"]:
        traces, steps = [], list(film_steps)
        for run in data["runs"]:
            curve = run["curves"].get(metric["key"])
            if curve is None:
                continue
            x = _values(curve["x"])
            steps.append(x)
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines" if len(x) > MARKERS_UP_TO else "lines+markers",
                    "x": _typed(curve["x"]),
                    "y": _typed(curve["y"]),
                    "name": run["legend"],
                    "line": {"color": run["color"], "width": 2, "dash": run.get("dash", "solid")},
                    "marker": {"size": 4, "color": run["color"]},
                    "hovertemplate": "step %{x}<br>%{y:.4g}",
                }
            )
        span = _span(steps)
        y_range = charts.natural_range(metric["key"])
        references = [v for run in data["runs"] for v in (run.get("baselines") or {}).get(metric["key"], [])]
        layout = {
            "title": {"text": metric["label"], "font": {"size": 14}},
            "height": 260,
            "font": FONT,
            "margin": {"l": 58, "r": 16, "t": 36, "b": 40},
            "showlegend": len(traces) > 1,
            "legend": {"orientation": "h", "y": -0.32},
            "xaxis": {"title": {"text": "step"}, "zeroline": False, "range": span, "autorange": span is None},
            "yaxis": {"zeroline": False, **({"range": y_range, "autorange": False} if y_range else {})},
            **charts.baseline_lines(references),
        }
        figure = {"data": traces, "layout": layout}
        panels.append(description.panel(figure, metric["key"], cursor=True))
    return description.description(panels, step=first_step(data))


def relations(data: dict[str, Any]) -> description.Description:
    """A panel per relation figure (key: its kind), a run's points with their steps (``customdata``), and
    the ring that marks the film's step (``layout.shapes[0]``, hidden until a frame is shown)."""
    panels = []
    for relation in data["relations"]:
        kind, traces = relation["kind"], []
        for run in data["runs"]:
            found = (run.get("relations") or {}).get(kind)
            if not found:
                continue
            name = found["legend"] or run["legend"]
            if found["r"] is not None:
                rho = "n/a" if found["rho"] is None else f"{found['rho']:.3f}"
                name += f": r = {found['r']:.3f}, ρ = {rho}"
            path = charts.RELATION_FIGURES[kind].path
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers" if path else "markers",
                    "x": _typed(found["x"]),
                    "y": _typed(found["y"]),
                    "customdata": _typed(found["step"]),
                    "name": name,
                    "line": {"color": run["color"]},
                    "marker": {"color": run["color"], "size": 5 if path else 6},
                    "hovertemplate": f"step %{{customdata}}<br>{relation['x']} %{{x:.4f}}<br>"
                    f"{relation['y']} %{{y:.4f}}",
                }
            )
            xs, ys = _values(found["x"]), _values(found["y"])
            if path and len(xs):
                traces.append(
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": [float(xs[-1])],
                        "y": [float(ys[-1])],
                        "showlegend": False,
                        "hoverinfo": "skip",
                        "marker": {"color": run["color"], "size": 13, "symbol": "star"},
                    }
                )
        ring = {
            "type": "circle",
            "xref": "x",
            "yref": "y",
            "xsizemode": "pixel",
            "ysizemode": "pixel",
            "xanchor": 0,
            "yanchor": 0,
            "x0": -9,
            "x1": 9,
            "y0": -9,
            "y1": 9,
            "visible": False,
            "line": {"color": CURSOR, "width": 3},
        }
        layout = {
            "title": {"text": relation["title"], "font": {"size": 14}},
            "height": 420,
            "font": FONT,
            "showlegend": True,
            "margin": {"l": 64, "r": 16, "t": 40, "b": 50},
            "legend": {"orientation": "h", "y": -0.2},
            "shapes": [ring],
            "xaxis": {"title": {"text": relation["x"]}},
            "yaxis": {"title": {"text": relation["y"]}},
        }
        panels.append(description.panel({"data": traces, "layout": layout}, kind, wide=True))
    return description.description(panels)


def spectrum(data: dict[str, Any]) -> description.Description:
    """The covariance spectrum figure (:func:`engine.charts.spectrum_figure`), in the page's fonts."""
    if not data["spectrum"]:
        return description.description([])
    figure = data["spectrum"]
    title = {**(figure["layout"].get("title") or {}), "font": {"size": 14}}
    layout = {**figure["layout"], "font": FONT, "height": 440, "title": title}
    return description.description(
        [description.panel({"data": figure["data"], "layout": layout}, "spectrum", wide=True)]
    )


def lesson_charts(data: dict[str, Any]) -> dict[str, description.Description]:
    """The lesson's three chart descriptions, as JSON: curves, relations and spectrum."""
    return {
        "curves": description.plain(curves(data)),
        "relations": description.plain(relations(data)),
        "spectrum": description.plain(spectrum(data)),
    }
