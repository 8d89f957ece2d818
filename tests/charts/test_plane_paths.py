"""The alignment–uniformity plane with each run's path (SimCSE Fig. 2) and the compact legend of projector
mode (engine/charts/plane_paths.py, engine/charts/legend.py)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from engine import charts
from engine.charts import legend, plane_paths


def run(steps: int = 30, shift: float = 0.0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "step": range(steps),
            "alignment": [0.2 + shift + s / 100 for s in range(steps)],
            "uniformity": [-1.0 - s / 10 for s in range(steps)],
        }
    )


def test_each_run_is_a_path_from_a_circle_through_arrows_to_its_own_end_marker() -> None:
    figure = plane_paths.align_uniform_path_json({"a <b>": run(), "b": run(shift=0.1)}, measured_on="pairs")
    assert figure is not None
    lines = [t for t in figure["data"] if t.get("showlegend") is not False]
    marks = [t for t in figure["data"] if t.get("showlegend") is False]
    starts = [t for t in marks if t["marker"]["symbol"] == "circle-open"]
    ends = [t for t in marks if t["marker"]["symbol"] != "circle-open"]
    assert [t["name"] for t in lines] == ["a &lt;b&gt;", "b"]  # names as typed, never markup
    for line, start, end in zip(lines, starts, ends, strict=True):
        assert len(line["x"]) == plane_paths.POINTS  # a few points: readable on a projector
        assert line["customdata"][0] == 0 and line["customdata"][-1] == 29  # first and last kept, in order
        assert line["marker"]["symbol"] == "arrow" and line["marker"]["size"][-1] == 0  # the end's own
        assert line["marker"]["angleref"] == "previous"  # each arrow points the way training went
        assert start["marker"]["symbol"] == "circle-open" and start["x"] == [line["x"][0]]
        assert end["x"] == [line["x"][-1]] and "angleref" not in end["marker"]  # upright: its shape kept
    assert figure["data"][-len(ends) :] == ends  # drawn last: no path covers an end
    ends_seen = [(end["marker"]["symbol"], end["marker"]["color"]) for end in ends]
    assert ends_seen[0][0] == "star" and len({s for s, _ in ends_seen}) == len({c for _, c in ends_seen}) == 2
    assert "path" in figure["layout"]["title"] and "pairs" in figure["layout"]["title"]
    go.Figure(figure)  # valid Plotly


def test_a_run_without_alignment_draws_no_path() -> None:
    assert plane_paths.align_uniform_path_json({"a": pd.DataFrame({"step": [0], "loss": [1.0]})}) is None
    assert charts.run_figures(["align_uniform_path"], {"a": run()}, as_json=True)


def test_projector_mode_offers_the_path_beside_the_plane() -> None:
    assert charts.projector_figures(("align_uniform",)) == ["align_uniform_path", "align_uniform"]
    assert all(
        name in charts.RUN_FIGURES and name in charts.FIGURE_NAMES
        for name in charts.projector_figures(("align_uniform",))
    )


def test_a_presets_shared_name_leaves_the_legend() -> None:
    names = ["SimCSE Figure 2 · dropout 0", "SimCSE Figure 2 · same mask"]
    assert legend.common_part(names) == "SimCSE Figure 2"
    part, runs = legend.shortened(dict.fromkeys(names, 1))
    assert list(runs) == ["dropout 0", "same mask"]
    assert legend.common_part(["a · b", "c · d"]) == "" and legend.common_part(["a", "a · b"]) == ""
    figure = legend.titled_part(go.Figure(layout={"title": {"text": "T<br><sup>on x</sup>"}}), part)
    assert figure.layout.title.text == "T<br><sup>on x · runs of SimCSE Figure 2</sup>"


def test_legend_rows_are_packed_as_plotly_wraps_them() -> None:
    short = ["a", "b", "c", "d"]
    assert legend.packed_rows(short, 20, 980) == 1
    long = ["augment delete one word"] * 4
    assert legend.packed_rows(long, 20, 440) == 4  # one a row: each is wider than half the plot
    assert legend.packed_rows(long, 20, 980) == 2
    traces = [{"name": n} for n in short]
    assert legend.legend_extra(traces) == 3 * legend.LEGEND_ROW  # a row each without a width
    assert legend.legend_extra(traces, font=20, width=980) == 0
    wide = charts.styled(
        go.Figure(charts.metric_json({n: run() for n in short}, "alignment")), charts.PROJECTOR_WIDE
    )
    narrow = charts.styled(
        go.Figure(charts.metric_json({n * 30: run() for n in short}, "alignment")), charts.PROJECTOR
    )
    assert wide.layout.height == charts.PROJECTOR_WIDE.height  # one row: no room added under the plot
    assert narrow.layout.height > charts.PROJECTOR.height
