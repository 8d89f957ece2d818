"""Runs that coincide are both visible (the later curve dashed, with markers), and a run's collapse onset
(RankMe below the declared share of its start) is a vertical mark on its curves over steps,
in the chart description the live view and the replay draw."""

from __future__ import annotations

import pandas as pd

from engine import charts
from engine.charts import description
from engine.charts.coinciding import ON_ANOTHER, same_curve, show_coinciding
from engine.charts.onset_marks import MARK_TEXT
from engine.core.measures import COLLAPSE_ONSET, COLLAPSE_PROFILE, RANKME

STEPS = [0, 5, 10, 15]


def run(rank: list[float], loss: list[float] | None = None, lens: bool = True) -> pd.DataFrame:
    """A run's rows; ``lens``: it logs the whole collapse lens (JEPA), else RankMe alone (the probe)."""
    profile = {measure: [0.5] * len(STEPS) for measure in COLLAPSE_PROFILE} if lens else {}
    return pd.DataFrame({"step": STEPS, RANKME: rank, "loss": loss or [1.0, 0.8, 0.5, 0.3], **profile})


COLLAPSING = [246.0, 200.0, 120.0, 81.49]
RUNS = {
    "jepa": run([246.0, 240.0, 230.0, 222.8]),
    "stop-grad only": run(COLLAPSING),
    "none of the three": run([246.0, 200.0, 120.0, 81.4894]),
}


def legend_traces(figure: dict) -> list[dict]:
    return [trace for trace in figure["data"] if trace.get("showlegend") is not False]


def test_the_later_of_two_coinciding_curves_is_dashed_with_markers_and_named() -> None:
    for smoothing in (0.0, 0.6):
        figure = charts.metric_json(RUNS, RANKME, smoothing=smoothing)
        jepa, first, later = legend_traces(figure)
        assert later["mode"] == "lines+markers" and later["line"]["dash"] not in (None, "solid")
        assert later["marker"]["size"] > 6 and later["name"] == "none of the three"
        assert first["mode"] == "lines" and first["name"] == "stop-grad only" and jepa["name"] == "jepa"
    loss = charts.metric_json(RUNS, "loss")  # all three losses are the same here: both later ones marked
    assert [t["mode"] for t in legend_traces(loss)] == ["lines", "lines+markers", "lines+markers"]
    solid = show_coinciding([{"x": STEPS, "y": COLLAPSING, "line": {"dash": "solid"}}] * 2)
    assert solid[1]["line"]["dash"] == ON_ANOTHER  # a solid line on another becomes dashed


def test_curves_apart_or_on_other_steps_do_not_coincide() -> None:
    a = {"x": STEPS, "y": [1.0, 2.0, 3.0, 4.0]}
    assert same_curve(a, {"x": STEPS, "y": [1.0, 2.0, 3.0, 4.001]})
    assert not same_curve(a, {"x": STEPS, "y": [1.0, 2.0, 3.0, 4.1]})
    assert not same_curve(a, {"x": [0, 5, 10, 16], "y": a["y"]})
    assert not same_curve({"x": [0], "y": [1.0]}, {"x": [0], "y": [1.0]})  # one point is no curve


def test_the_collapse_onset_is_marked_on_every_curve_over_steps_in_the_description() -> None:
    onset = next(step for step, value in zip(STEPS, COLLAPSING, strict=True) if value < COLLAPSE_ONSET * 246)
    for metric in (RANKME, "loss"):
        panel = description.plain(description.panel(charts.metric_json(RUNS, metric), metric))
        layout = panel["figure"]["layout"]
        marks = [shape for shape in layout["shapes"] if shape.get("yref") == "paper"]
        assert sorted(shape["x0"] for shape in marks) == [onset, onset]  # the two collapse runs, not JEPA
        assert [note["text"] for note in layout["annotations"]].count(MARK_TEXT) == 1  # one text per step
    kept = charts.metric_json({"jepa": RUNS["jepa"]}, RANKME)
    assert not kept["layout"].get("shapes")
    seconds = {name: frame.assign(seconds=frame["step"] * 2.0) for name, frame in RUNS.items()}
    assert not charts.metric_json(seconds, RANKME, x="seconds")["layout"].get("shapes")


def test_a_run_logging_rankme_without_the_collapse_lens_is_not_marked() -> None:
    """The probe logs RankMe alone, and its rank falls as its clusters form: no collapse mark there."""
    probe = {"probe": run(COLLAPSING, lens=False)}
    assert not charts.metric_json(probe, RANKME)["layout"].get("shapes")
    assert charts.metric_json({"jepa-like": run(COLLAPSING)}, RANKME)["layout"].get("shapes")
