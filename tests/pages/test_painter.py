"""The live canvas painter's schema of a Plotly figure (ui/painter.py): series, colours, axes, gaps, hovers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine import charts
from ui import painter


def test_paint_spec_carries_the_series_and_axes_of_a_metric_figure() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2, 3], "loss": [1.0, 0.5, float("nan"), 0.1 + 1 / 3]})
    fig = charts.metric_figure(
        {"a": frame, "b": frame.assign(loss=frame["loss"] * 2)}, "loss", smoothing=0.5, log_y=True
    )
    spec = painter.paint_spec(fig, "loss")
    assert spec["title"] == "Training loss" and spec["xTitle"] == "step" and spec["logY"] is True
    assert spec["height"] == 300 and spec["wide"] is False and spec["key"] == "loss"
    raw, smooth = spec["series"][0], spec["series"][1]
    assert raw["opacity"] == 0.3 and raw["legend"] is False and raw["hover"] is False
    assert smooth["name"] == "a" and smooth["width"] == 2.0 and smooth["color"] == charts.color(0)
    assert spec["series"][3]["color"] == charts.color(1)
    assert raw["x"] == [0.0, 1.0, 3.0] and raw["y"][-1] == 0.4333333  # NaN rows dropped, 7 digits
    assert len(spec["series"]) == 4


def test_paint_spec_turns_non_finite_values_into_gaps_and_keeps_hover_texts_and_equal_axes() -> None:
    coords = np.array([[0.0, 1.0], [np.inf, 2.0], [3.0, np.nan], [4.0, 5.0], [6.0, 7.0]])
    points = pd.DataFrame({"label": ["x", "x", "y", "y", "y"], "text": ["a", "b", "c", "d", "e" * 70]})
    spec = painter.paint_spec(charts.projection_figure(coords, points, title="UMAP · step 3"), "p", wide=True)
    assert spec["equalAxes"] is True and spec["hideTicks"] is True and spec["wide"] is True
    first, second = spec["series"]
    assert first["x"] == [0.0, None] and second["y"] == [None, 5.0, 7.0]
    assert first["text"] == ["a", "b"] and "\n" in second["text"][2]  # Plotly's <br> becomes a line break
    assert first["mode"] == "markers" and first["size"] == 5.0


def test_paint_spec_keeps_fixed_ranges_and_a_forced_legend() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2], "isoscore": [0.3, 0.2, 0.1], "silhouette": [0.0, 0.2, 0.5]})
    spec = painter.paint_spec(charts.iso_sil_figure({"a": frame}), "iso")
    assert spec["showLegend"] is True and spec["series"][0]["name"].startswith("a: r = ")
    fig = charts.metric_figure({"a": frame}, "isoscore")
    fig.update_xaxes(range=[0, 10], autorange=False)
    assert painter.paint_spec(fig, "k")["xRange"] == [0.0, 10.0] and "yRange" not in painter.paint_spec(
        fig, "k"
    )


@pytest.mark.parametrize("smoothing", [0.0, 0.7])
@pytest.mark.parametrize("log_y", [False, True])
@pytest.mark.parametrize("x", ["step", "seconds"])
def test_the_plain_json_of_a_metric_figure_paints_as_the_figure_does(smoothing, log_y, x) -> None:
    """The live view paints ``charts.metric_json`` (no Plotly objects); the panel is the one the Plotly figure
    of the finished view gives."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "step": np.arange(400),
            "seconds": np.arange(400) * 0.07,
            "loss": np.r_[rng.random(398) + 0.01, np.nan, 0.0],
        }
    )
    runs = {"probe·ab12": frame, "probe·cd34": frame.assign(loss=frame["loss"] * 2), "empty": frame.iloc[:0]}
    options = dict(x=x, smoothing=smoothing, log_y=log_y, max_points=120, measured_on="the demo")
    from_json = painter.paint_spec(charts.metric_json(runs, "loss", **options), "loss")
    assert from_json == painter.paint_spec(charts.metric_figure(runs, "loss", **options), "loss")
    assert len(from_json["series"][-1]["x"]) == 120 and from_json["title"] == "Training loss · on the demo"


@pytest.mark.parametrize("share", [False, True])
def test_the_plain_json_of_the_spectrum_and_relation_figures_paints_as_the_figures_do(share) -> None:
    from engine.runlog import Spectra

    rng = np.random.default_rng(5)
    eigenvalues = np.sort(rng.random((15, 24)) ** 3, axis=1)[:, ::-1] * 10
    eigenvalues[:, -4:] = 0.0  # numerical zeros: left out
    one, two = (
        {"a": Spectra(np.arange(15) * 10, eigenvalues)},
        {"a": Spectra(np.arange(15), eigenvalues), "b": Spectra(np.arange(2), eigenvalues[:2])},
    )
    for spectra in (one, two):
        assert painter.paint_spec(
            charts.spectrum_json(spectra, share=share, measured_on="the demo"), "s"
        ) == painter.paint_spec(charts.spectrum_figure(spectra, share=share, measured_on="the demo"), "s")
    frame = pd.DataFrame({"step": np.arange(50), "isoscore": rng.random(50), "silhouette": rng.random(50)})
    runs = {"a": frame, "b": frame.iloc[:2]}
    assert painter.paint_spec(
        charts.relation_json(runs, "isoscore", "silhouette", max_points=20), "r"
    ) == painter.paint_spec(charts.relation_figure(runs, "isoscore", "silhouette", max_points=20), "r")


def test_paint_spec_reads_plotly_json_as_it_reads_the_figure() -> None:
    frame = pd.DataFrame(
        {
            "step": [0, 1, 2],
            "isoscore": [0.3, 0.2, 0.1],
            "silhouette": [0.0, 0.2, 0.5],
            "alignment": [0.2, 0.3, 0.4],
            "uniformity": [-1.0, -1.5, -2.0],
        }
    )
    coords = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    points = pd.DataFrame({"label": ["x", "y", "y"], "text": ["a", "b", "c"]})
    figures = [
        charts.iso_sil_figure({"a": frame}),
        charts.align_uniform_figure({"a": frame}),
        charts.projection_figure(coords, points, title="UMAP · step 3", style=charts.PROJECTOR),
        charts.metric_figure({"a": frame}, "isoscore", style=charts.PROJECTOR),
    ]
    for fig in figures:
        assert painter.paint_spec(fig.to_plotly_json(), "k") == painter.paint_spec(fig, "k")


def test_paint_sends_the_running_runs_progress_with_the_panels(monkeypatch) -> None:
    sent = []
    monkeypatch.setattr(painter, "_component", lambda **args: sent.append(args))
    painter.paint(
        [{"key": "loss"}], "probe.live", [(0.5, "probe·ab12 — step 5/10"), (1, "probe·cd34 — done")]
    )
    painter.paint([{"key": "loss"}], "probe.live")
    assert sent[0]["progress"] == [
        {"fraction": 0.5, "text": "probe·ab12 — step 5/10"},
        {"fraction": 1.0, "text": "probe·cd34 — done"},
    ]
    assert (
        sent[1]["progress"] == []
        and sent[0]["panels"] == [{"key": "loss"}]
        and sent[0]["key"] == "probe.live"
    )


def test_the_canvas_progress_bar_is_not_animated() -> None:
    """A CSS transition on the bar's width makes the browser composite frames after every refresh: the
    reason the progress is drawn here and not with st.progress (ui/painter.py)."""
    page = (painter.FILES / "index.html").read_text(encoding="utf-8") + (
        painter.FILES / "painter.js"
    ).read_text(encoding="utf-8")
    assert "progress-fill" in page and "transition" not in page.replace("no transition", "")
