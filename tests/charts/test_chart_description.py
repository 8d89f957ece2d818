"""The chart description (engine/charts/description.py): plain JSON whose numbers travel as typed arrays
(NaN and infinities kept), titles as Plotly.js reads them, and the same panel as a plotly.py figure."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest

from engine import charts
from engine.charts import description


def decoded(typed: dict) -> np.ndarray:
    assert typed["dtype"] == "f8"
    return np.frombuffer(base64.b64decode(typed["bdata"]), dtype="<f8")


@pytest.mark.parametrize("values", [[0.0, 1.5, -2.25], [np.nan, np.inf, -np.inf, 1e-300], list(range(7))])
def test_numbers_travel_as_float64_typed_arrays_exactly(values) -> None:
    found = description.plain({"x": np.asarray(values), "y": pd.Series(values), "n": np.float32(0.5)})
    text = json.dumps(found, allow_nan=False)  # valid JSON: no NaN literal anywhere
    back = json.loads(text)
    for key in ("x", "y"):
        np.testing.assert_array_equal(decoded(back[key]), np.asarray(values, dtype=float))
    assert back["n"] == 0.5 and description.plain(float("nan")) is None
    assert description.plain(np.array(["a", "b"], dtype=object)) == ["a", "b"]


def test_a_panel_of_plain_plotly_json_has_title_objects_and_no_template() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2], "loss": [1.0, 0.5, 0.25]})
    panel = description.panel(charts.metric_json({"a": frame}, "loss"), "loss", cursor=True)
    layout = panel["figure"]["layout"]
    assert layout["title"] == {"text": "Training loss"} and layout["xaxis"]["title"] == {"text": "step"}
    styled = description.panel(charts.metric_figure({"a": frame}, "loss"), "loss")
    assert "template" not in styled["figure"]["layout"]
    assert panel["key"] == "loss" and panel["cursor"] is True and panel["wide"] is False


def test_the_static_figure_of_a_panel_is_the_charts_figure_with_the_cursor_at_the_step() -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"step": np.arange(50), "loss": rng.random(50)})
    options = dict(smoothing=0.5, log_y=True, measured_on="the demo")
    panel = description.panel(charts.metric_json({"a": frame, "b": frame * 2}, "loss", **options), "loss")
    expected = charts.metric_figure({"a": frame, "b": frame * 2}, "loss", **options)
    assert description.figure(panel).to_plotly_json() == expected.to_plotly_json()
    marked = description.figure({**panel, "cursor": True}, step=20)
    assert [(s.x0, s.x1, s.line.dash) for s in marked.layout.shapes] == [(20, 20, "dot")]


def test_versioned_gives_equal_figures_equal_versions_and_keeps_given_ones() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2], "loss": [1.0, 0.5, 0.25]})
    grown = pd.DataFrame({"step": [0, 1, 2, 3], "loss": [1.0, 0.5, 0.25, 0.2]})

    def versions(*frames: pd.DataFrame, given: str | None = None) -> list[str]:
        panels = [
            description.panel(charts.metric_json({"a": f}, "loss"), f"p{i}") for i, f in enumerate(frames)
        ]
        panels.append(description.panel({"data": [], "layout": {}}, "frame", version=given))
        return [
            p["version"]
            for p in description.versioned(description.plain(description.description(panels)))["panels"]
        ]

    first, same, other, kept = versions(frame, frame.copy(), grown, given="run-umap-10")
    assert first == same and first != other and kept == "run-umap-10"
    assert versions(frame)[0] == first  # the same figure built again: the same version
