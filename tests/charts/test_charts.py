"""Plotly figure builders: traces per run, smoothing, log-y, downsampling, projections, animation."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from engine import charts
from engine.charts import figures, legend
from engine.core import measures, settings


def run(n: int = 50, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    step = np.arange(n)
    return pd.DataFrame(
        {
            "step": step,
            "seconds": step * 0.5,
            "loss": np.exp(-step / 10) + 0.01 * rng.random(n),
            "isoscore": 0.5 - step / (4 * n),
            "silhouette": step / (2 * n) + 0.001 * rng.random(n),
            "alignment": 0.2 + step / (10 * n),
            "uniformity": -1 - step / n,
        }
    )


def test_ema_matches_tensorboard_debiasing_and_skips_nan() -> None:
    assert np.allclose(charts.ema([1.0, 1.0, 1.0], 0.9), 1.0)
    out = charts.ema(np.array([0.0, np.nan, 10.0]), 0.5)
    assert (
        out[0] == 0.0
        and np.isnan(out[1])
        and out[2] == pytest.approx((0.5 * 0 * 0.5 + 0.5 * 10) / (1 - 0.25))
    )
    assert np.array_equal(charts.ema([1.0, 2.0], 0.0), [1.0, 2.0])


def test_downsample_keeps_ends() -> None:
    frame = pd.DataFrame({"step": range(10_000)})
    small = charts.downsample(frame, 100)
    assert len(small) == 100 and small["step"].iloc[0] == 0 and small["step"].iloc[-1] == 9_999
    assert len(charts.downsample(frame.head(5), 100)) == 5
    assert len(charts.downsample(frame)) == settings.get("chart_points")  # the default: a setting


def test_metric_figure_overlays_runs_with_smoothing_logy_and_seconds_axis() -> None:
    runs = {"a": run(), "b": run(seed=1)}
    fig = charts.metric_figure(runs, "loss", smoothing=0.6, log_y=True, x="seconds")
    assert [t.name for t in fig.data] == ["a (raw)", "a", "b (raw)", "b"]
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.title.text == "seconds"
    assert fig.data[1].x[-1] == pytest.approx(24.5)
    long = charts.metric_figure({"long": run(5000)}, "loss", max_points=300)
    assert len(long.data[0].x) == 300
    assert charts.metric_figure(runs, "missing").data == ()


def test_available_metrics() -> None:
    frame = run().assign(empty=np.nan)
    assert charts.available_metrics({"a": frame}, ["loss", "empty", "nope"]) == ["loss"]


def test_align_uniform_plane_one_trajectory_per_run() -> None:
    fig = charts.align_uniform_figure({"a": run(), "b": run(seed=2), "no-eval": run()[["step", "loss"]]})
    lines = [t for t in fig.data if t.showlegend is not False]
    assert [t.name for t in lines] == ["a", "b"]
    assert fig.layout.xaxis.title.text == "l_uniform" and fig.layout.yaxis.title.text == "l_align"


def test_iso_sil_scatter_reports_pearson_and_spearman() -> None:
    fig = charts.iso_sil_figure({"probe": run()})
    assert "r = " in fig.data[0].name and "ρ = -1.000" in fig.data[0].name
    r, rho = charts.correlations(run())
    assert r < -0.99 and rho == pytest.approx(-1.0)
    assert charts.correlations(run().head(2)) is None


def test_projection_figure_colours_by_label_with_text_hover() -> None:
    coords = np.random.default_rng(0).normal(size=(6, 2))
    points = pd.DataFrame({"text": ["x" * 500, "b", "c", "d", "e", "f"], "label": ["p", "n"] * 3})
    fig = charts.projection_figure(coords, points, title="t")
    assert [t.type for t in fig.data] == ["scattergl", "scattergl"]
    assert sorted(t.name for t in fig.data) == ["n", "p"]
    assert fig.data[1].hovertext[0].endswith("…")
    assert len(fig.data[1].hovertext[0].replace("<br>", "")) == settings.get("hover_chars")
    assert len(charts.projection_figure(coords).data) == 1


def test_frames_figure_has_slider_play_and_bounded_frames() -> None:
    rng = np.random.default_rng(0)
    frames = {step: rng.normal(size=(10, 2)) for step in range(0, 100, 2)}
    points = pd.DataFrame({"text": list("abcdefghij"), "label": ["u", "v"] * 5})
    fig = charts.frames_figure(frames, points, max_frames=10)
    assert len(fig.frames) == 10 and fig.frames[-1].name == "98"
    assert fig.layout.sliders[0].steps[0].label == "0"
    assert fig.layout.updatemenus[0].buttons[0].label.endswith("play")
    assert len(charts.frames_figure({}, points).data) == 0


def test_user_text_in_legends_and_hovers_is_escaped_for_plotly() -> None:
    """Plotly renders <i>, <a href> in names and hover texts: labels and sentences from files must not."""
    coords = np.zeros((2, 2), dtype=np.float32)
    points = pd.DataFrame({"text": ["<a href='http://x'>hi</a>", "a & b"], "label": ["<i>pos</i>", "neg"]})
    fig = charts.projection_figure(coords, points, title="t")
    names = {trace.name for trace in fig.data}
    assert "&lt;i&gt;pos&lt;/i&gt;" in names and "<i>pos</i>" not in names
    hovers = [text for trace in fig.data for text in trace.hovertext]
    assert "&lt;a href='http://x'&gt;hi&lt;/a&gt;" in hovers and "a &amp; b" in hovers


def test_log_y_ticks_read_as_numbers_not_bare_mantissas() -> None:
    fig = charts.metric_figure({"a": run()}, "loss", log_y=True)
    axis = fig.layout.yaxis
    assert axis.type == "log" and axis.tickmode == "array"
    for value, text in zip(axis.tickvals, axis.ticktext, strict=True):
        assert float(text.replace(",", "")) == pytest.approx(value)  # "0.2" for 0.2, never a bare "2"
    assert list(axis.ticktext)[:3] == ["0.01", "0.02", "0.05"]
    assert [text for _, text in charts.log_ticks(2e-7, 3e-5)] == [
        "2×10⁻⁷",
        "5×10⁻⁷",
        "10⁻⁶",
        "2×10⁻⁶",
        "5×10⁻⁶",
        "10⁻⁵",
        "2×10⁻⁵",
    ]
    assert [text for _, text in charts.log_ticks(1e-8, 1e3)] == [
        "10⁻⁸",
        "10⁻⁷",
        "10⁻⁶",
        "10⁻⁵",
        "10⁻⁴",
        "0.001",
        "0.01",
        "0.1",
        "1",
        "10",
        "100",
        "1,000",
    ]
    assert charts.log_ticks(0.0, 1.0) == []


def test_the_legend_sits_below_the_x_axis_title_not_on_it() -> None:
    for fig in (
        charts.metric_figure({"a": run(), "b": run(seed=1)}, "loss"),
        charts.align_uniform_figure({"a": run()}),
        charts.iso_sil_figure({"a": run()}),
    ):
        legend = fig.layout.legend
        assert (legend.yref, legend.y, legend.yanchor) == ("container", 0.0, "bottom"), fig.layout.title.text
        assert fig.layout.margin.b >= 70  # room for the tick labels, the axis title and one legend row


def test_titles_name_the_data_the_measures_come_from(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(tmp_path))
    simcse = {"mode": "unsup", "data_dir": None, "eval": None}
    assert charts.measured_on("simcse", simcse) == "built-in demo pairs"
    (tmp_path / "stsb").mkdir()
    assert charts.measured_on("simcse", simcse) == "STS-B dev"
    assert charts.measured_on("simcse", simcse, {"eval_set": "demo-pairs"}) == "built-in demo pairs"
    assert charts.measured_on("simcse", simcse, {"train_and_eval": ["wiki1m", "stsb"]}) == "STS-B dev"
    assert (
        charts.measured_on("simcse", simcse, {"eval_set": "stsb-dev (250 of 1,500 pairs)"})
        == "STS-B dev (250 of 1,500 pairs)"
    )
    assert (
        charts.measured_on("simcse", simcse, {"eval_set": "demo-pairs (238 pairs)"})
        == "built-in demo pairs (238 pairs)"
    )
    assert (
        charts.measured_on("probe", {"data": "demo", "label_col": "sentiment"}) == "the demo sentiment labels"
    )
    assert charts.measured_on("probe", {"data": "/x/cache/uploads/my.csv"}) == "my.csv"
    fig = charts.metric_figure({"a": run()}, "sts_spearman", measured_on="built-in demo pairs")
    assert fig.layout.title.text == "STS Spearman ρ<br><sup>on built-in demo pairs</sup>"
    assert charts.align_uniform_figure({"a": run()}, measured_on="STS-B dev").layout.title.text.endswith(
        "on STS-B dev</sup>"
    )


def test_projector_style_sets_every_text_to_at_least_18_px_and_thickens_lines() -> None:
    figures = [
        charts.metric_figure({"a": run()}, "loss", smoothing=0.5, style=charts.PROJECTOR),
        charts.align_uniform_figure({"a": run()}, style=charts.PROJECTOR),
        charts.iso_sil_figure({"a": run()}, style=charts.PROJECTOR),
        charts.frames_figure({0: np.zeros((4, 2)), 1: np.ones((4, 2))}, style=charts.PROJECTOR),
    ]
    for fig in figures:
        layout = fig.layout
        sizes = [
            layout.font.size,
            layout.title.font.size,
            layout.legend.font.size,
            layout.xaxis.tickfont.size,
            layout.yaxis.tickfont.size,
            layout.xaxis.title.font.size,
            layout.yaxis.title.font.size,
        ]
        assert min(sizes) >= 18, (layout.title.text, sizes)
    loss = figures[0]
    assert [t.line.width for t in loss.data] == [2.0, 4.0] and loss.layout.height >= 400
    assert all(t.marker.size >= 10 for t in figures[3].frames[0].data)
    plain = charts.metric_figure({"a": run()}, "loss")
    assert plain.layout.font.size is None and plain.data[0].line.width == 2


def test_divergence_is_a_non_number_or_a_tenfold_growth_of_the_loss() -> None:
    assert (
        charts.divergence(pd.DataFrame({"step": [0, 1, 2], "loss": [1.8, 2.5, 19.0]}))
        == "the training loss grew from 1.8 at step 0 to 19 at step 2"
    )
    assert "no longer a number (NaN or infinite) from step 2" in charts.divergence(
        pd.DataFrame({"step": [0, 1, 2], "loss": [1.8, 0.9, None]})
    )
    assert (
        charts.divergence(pd.DataFrame({"step": [0, 1, 2], "loss": [None, 1.8, 0.9]})) is None
    )  # SimCSE's step 0
    assert charts.divergence(run()) is None
    assert (
        charts.divergence(pd.DataFrame({"step": [0, 1], "loss": [0.001, 0.05]})) is None
    )  # tenfold but tiny


# ------------------------------------------------------------------------------------ the geometry lens


def spectra(steps: int = 20, d: int = 6, seed: int = 0):
    """Spectra as engine.runlog reads them: eigenvalues descending, a zero at the end (n <= d)."""
    from engine.runlog import Spectra

    rng = np.random.default_rng(seed)
    values = np.sort(rng.random((steps, d)) + 0.01, axis=1)[:, ::-1].copy()
    values[:, -1] = 0.0
    return Spectra(np.arange(steps, dtype=np.int64) * 5, values)


def relative_luminance(colour: str) -> float:
    red, green, blue = (int(v) / 255 for v in colour[colour.index("(") + 1 : -1].split(","))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_the_spectrum_of_one_run_is_a_line_per_shown_step_from_light_to_dark() -> None:
    found = spectra()
    fig = charts.spectrum_figure({"a": found})
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == charts.MAX_SPECTRA  # 20 logged spectra, 12 shown, evenly spaced
    shown = [int(t.name.split()[1]) for t in lines]
    assert shown[0] == 0 and shown[-1] == 95 and shown == sorted(shown)
    for trace, step in zip(lines, shown):
        expected = found.at(step).copy()
        expected[-1] = np.nan  # a numerical zero is not drawn on the log axis
        np.testing.assert_array_equal(np.asarray(trace.y, dtype=float), expected)
        assert list(trace.x) == list(range(1, 7))
    light = [relative_luminance(t.line.color) for t in lines]
    assert all(a > b for a, b in zip(light, light[1:]))  # later steps darker: the newest reads best
    assert [t.showlegend for t in lines] == [True] + [False] * 10 + [True]
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.title.text == "rank k"
    bar = [t for t in fig.data if t.mode == "markers"][0]
    assert bar.marker.showscale and (bar.marker.cmin, bar.marker.cmax) == (0, 95)


def test_the_spectrum_as_shares_sums_to_one_and_several_runs_show_first_and_last() -> None:
    fig = charts.spectrum_figure({"a": spectra(3)}, share=True)
    for trace in (t for t in fig.data if t.mode == "lines"):
        assert np.nansum(np.asarray(trace.y, dtype=float)) == pytest.approx(1.0)
    both = charts.spectrum_figure({"a": spectra(3), "b": spectra(1, seed=1), "none": None})
    assert [t.name for t in both.data] == ["a · step 0", "a · step 10", "b · step 0"]
    assert both.data[0].opacity < both.data[1].opacity and both.data[0].line.color == both.data[1].line.color
    assert len(charts.spectrum_figure({}).data) == 0


@pytest.mark.parametrize(("x", "y"), [("isoscore", "silhouette"), ("rankme", "uniformity")])
def test_the_relation_of_any_two_measures_gives_r_and_rho_as_scipy(x: str, y: str) -> None:
    from scipy import stats

    frame = run(40).assign(rankme=lambda f: 8 - f["step"] / 10 + np.sin(f["step"]))
    frame.loc[frame.index % 3 == 1, "rankme"] = np.nan  # logged every few steps only
    fig = charts.relation_figure({"a": frame, "no pair": frame[["step", "loss"]]}, x, y)
    assert len(fig.data) == 1
    both = frame[[x, y]].dropna()
    r, rho = stats.pearsonr(both[x], both[y])[0], stats.spearmanr(both[x], both[y])[0]
    assert fig.data[0].name == f"a: r = {r:.3f}, ρ = {rho:.3f}"
    assert list(fig.data[0].x) == both[x].tolist() and list(fig.data[0].y) == both[y].tolist()
    assert fig.layout.xaxis.title.text == charts.label(x) and fig.layout.yaxis.title.text == charts.label(y)
    assert ("Mickus" in fig.layout.title.text) == (x == "isoscore")


def test_the_plane_shows_a_probe_runs_class_alignment_beside_a_simcse_run() -> None:
    probe = charts.charted(run(), "probe")
    assert "class_alignment" in probe and "alignment" not in probe
    assert "alignment" in charts.charted(run(), "simcse")
    fig = charts.align_uniform_figure({"simcse": run(), "probe": probe})
    paths = [t for t in fig.data if t.showlegend is not False]
    assert [t.name for t in paths] == ["simcse", "probe (class alignment)"]
    assert list(paths[1].y) == probe["class_alignment"].tolist()
    assert "class alignment" in fig.layout.yaxis.title.text
    assert fig.layout.yaxis.title.text == "l_align" or len(paths) == 2
    assert charts.align_uniform_figure({"simcse": run()}).layout.yaxis.title.text == "l_align"


def test_measures_with_a_natural_range_are_drawn_on_it_unless_zoomed() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2], "silhouette": [0.10, 0.11, 0.12], "loss": [3.0, 2.0, 1.0]})
    drawn = charts.metric_json({"a": frame}, "silhouette")["layout"]["yaxis"]
    assert drawn["range"] == pytest.approx([-1.08, 1.08]) and drawn["autorange"] is False
    assert "range" not in charts.metric_json({"a": frame}, "silhouette", zoom=True)["layout"]["yaxis"]
    assert "range" not in charts.metric_json({"a": frame}, "loss")["layout"]["yaxis"]  # open range: fitted
    on_range = [name for name, m in measures.MEASURES.items() if m.fixed_range]
    for name in ("isoscore", "partition_isotropy", "silhouette", "average_cosine"):
        assert name in on_range and None not in measures.get(name).range


def test_runs_differ_by_colour_and_dash_alike_on_every_panel() -> None:
    frame = pd.DataFrame({"step": [0, 1, 2], "loss": [3.0, 2.0, 1.0], "isoscore": [0.5, 0.4, 0.3]})
    runs = {f"run {i}": frame for i in range(3)}
    looks = {
        metric: [
            (t["name"], t["line"]["color"], t["line"]["dash"])
            for t in charts.metric_json(runs, metric)["data"]
        ]
        for metric in ("loss", "isoscore")
    }
    assert looks["loss"] == looks["isoscore"]
    assert len({dash for _, _, dash in looks["loss"]}) == 3 and [n for n, _, _ in looks["loss"]] == list(runs)


def test_the_sts_reference_is_one_labelled_dashed_line_per_distinct_baseline() -> None:
    frame = pd.DataFrame({"step": [0, 10, 20], "sts_spearman": [0.77, 0.79, 0.81]})
    summaries = [{"sts_baseline": 0.863}, {"sts_baseline": 0.863}, {"sts_baseline": 0.735}, None, {}]
    found = charts.baselines(summaries, "sts_spearman")
    assert found == [0.863, 0.863, 0.735] and charts.baselines(summaries, "loss") == []
    layout = charts.metric_json({"a": frame}, "sts_spearman", baseline=found)["layout"]
    assert sorted(shape["y0"] for shape in layout["shapes"]) == [0.735, 0.863]
    assert {shape["line"]["dash"] for shape in layout["shapes"]} == {"dash"}
    assert sorted(note["text"] for note in layout["annotations"]) == [
        "untouched encoder: 0.735",
        "untouched encoder: 0.863",
    ]
    assert "shapes" not in charts.metric_json({"a": frame}, "sts_spearman")["layout"]


def test_a_legend_of_several_runs_gets_rows_of_its_own_under_the_x_axis() -> None:
    # four runs, one legend row each in a half-width panel: the figure and its bottom margin grow by three
    # rows, so the plot keeps the height of a one-run chart and the legend does not cover the x axis
    # (issue 25: Compare's x-axis title drawn over the tick labels)
    frame = pd.DataFrame({"step": range(10), "isoscore": np.linspace(0.3, 0.1, 10)})
    one = charts.metric_json({"a": frame}, "isoscore")["layout"]
    four = charts.metric_json({name: frame for name in "abcd"}, "isoscore")["layout"]
    extra = 3 * legend.LEGEND_ROW
    assert four["height"] == one["height"] + extra and four["margin"]["b"] == one["margin"]["b"] + extra
    plot_height = four["height"] - four["margin"]["t"] - four["margin"]["b"]
    assert plot_height == one["height"] - one["margin"]["t"] - one["margin"]["b"]
    unpacked = dataclasses.replace(charts.PROJECTOR, width=None)  # a row each, at the style's size
    styled = charts.metric_figure({name: frame for name in "abcd"}, "isoscore", style=unpacked)
    grow = charts.PROJECTOR.font / 12
    assert styled.layout.height == charts.PROJECTOR.height + round(extra * grow)
    packed = charts.metric_figure({name: frame for name in "abcd"}, "isoscore", style=charts.PROJECTOR)
    assert packed.layout.height == charts.PROJECTOR.height  # four short names side by side: one row
    relation = charts.relation_json({n: frame.assign(silhouette=0.1) for n in "ab"}, "isoscore", "silhouette")
    assert relation["layout"]["height"] == figures.TITLED["height"] + legend.LEGEND_ROW


# a metrics column as the runs' files give it: floats with gaps, integers, or cells of text (a damaged file)
CELLS = st.one_of(
    st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.none()), max_size=8).map(
        lambda values: pd.Series(values, dtype=float)
    ),
    st.lists(st.integers(-(2**40), 2**40), max_size=8).map(lambda values: pd.Series(values, dtype="int64")),
    st.lists(
        st.one_of(st.text(max_size=4), st.sampled_from(["1.5", "nan", "-2", "1e3", ""]), st.none()),
        max_size=8,
    ).map(lambda values: pd.Series(values, dtype=object)),
)


@examples(max_examples=300, deadline=None)
@given(column=CELLS)
def test_holds_numbers_answers_as_pandas_to_numeric_does(column: pd.Series) -> None:
    # the reference: any cell that pd.to_numeric reads as a number (what available_metrics asked before)
    assert figures.holds_numbers(column) == bool(pd.to_numeric(column, errors="coerce").notna().any())


@examples(max_examples=200, deadline=None)
@given(first=CELLS, second=CELLS)
def test_numbers_are_the_columns_through_pandas_to_numeric(first: pd.Series, second: pd.Series) -> None:
    size = min(len(first), len(second))
    frame = pd.DataFrame({"a": first[:size].to_numpy(), "b": second[:size].to_numpy(), "c": "text"})
    expected = frame[["a", "b"]].apply(pd.to_numeric, errors="coerce")
    pd.testing.assert_frame_equal(figures.numbers(frame, ["a", "b"]), expected)


def test_align_uniform_gives_the_live_view_json_and_other_views_the_styled_figure() -> None:
    runs = {"a": run(), "b": run(seed=2)}
    found = charts.align_uniform(runs, measured_on="STS-B dev", as_json=True)
    assert isinstance(found, dict) and found["layout"]["title"].endswith("<sup>on STS-B dev</sup>")
    fig = charts.align_uniform(runs, measured_on="STS-B dev", style=charts.PROJECTOR)
    assert fig.layout.font.size == charts.PROJECTOR.font  # styled; the JSON is not
    assert [trace.get("name") for trace in found["data"]] == [trace.name for trace in fig.data]
    for trace, drawn in zip(found["data"], fig.data, strict=True):
        np.testing.assert_array_equal(np.asarray(trace["x"], dtype=float), np.asarray(drawn.x, dtype=float))


def test_run_figures_are_built_by_name_only_for_runs_that_log_them() -> None:
    """``run_figures``: the names of a page section, built as plain JSON (the live view) or styled figures; a
    figure no shown run can fill is left out; an unknown name is a KeyError naming it."""
    simcse = pd.DataFrame(
        {"step": [0, 1, 2], "alignment": [0.2, 0.3, 0.25], "uniformity": [-2.0, -2.5, -2.6]}
    )
    probe = pd.DataFrame({"step": [0, 1], "loss": [1.0, 0.5]})
    where = {"uniformity": "demo pairs"}.get
    (plain,) = charts.run_figures(["align_uniform"], {"a": simcse, "b": probe}, where, as_json=True)
    names = {trace.get("legendgroup") for trace in plain["data"]}
    assert isinstance(plain, dict) and names == {"a"}, names
    assert "demo pairs" in str(plain["layout"]["title"])
    (styled,) = charts.run_figures(["align_uniform"], {"a": simcse}, where, style=charts.PROJECTOR)
    assert styled.layout.font.size == charts.PROJECTOR.font
    assert charts.run_figures(["align_uniform"], {"b": probe}, where) == []
    with pytest.raises(KeyError, match="no-such-figure"):
        charts.run_figures(["no-such-figure"], {"a": simcse})


MARKUP = '<a href="https://example.org">x</a><b>B</b> & co'


def test_a_run_name_with_markup_is_shown_as_typed_in_every_run_figure() -> None:
    """Plotly renders a subset of HTML in legends and hover boxes: a run named with tags must show them as
    text in every figure that names runs (curves, relations, the alignment–uniformity plane, spectra)."""
    from engine.runlog import Spectra

    frame = pd.DataFrame(
        {
            "step": [0, 1, 2, 3],
            "loss": [1.0, 0.8, 0.6, 0.5],
            "isoscore": [0.5, 0.4, 0.3, 0.2],
            "silhouette": [0.0, 0.1, 0.2, 0.3],
            "alignment": [0.2, 0.3, 0.3, 0.2],
            "uniformity": [-1, -2, -3, -3.5],
        }
    )
    runs = {MARKUP: frame, "other": frame}
    spectra = Spectra(steps=np.array([0, 3]), eigenvalues=np.array([[3.0, 2.0, 1.0], [4.0, 1.0, 0.5]]))
    figures_made = [
        charts.metric_json(runs, "loss"),
        charts.relation_json(runs, "isoscore", "silhouette"),
        charts.align_uniform_json(runs),
        charts.spectrum_json({MARKUP: spectra, "other": spectra}),
    ]
    for made in figures_made:
        text = json.dumps(made["data"], default=str)
        assert "<a href" not in text and "<b>B</b>" not in text, text[:300]
        assert "&lt;a href" in text and "&amp; co" in text


def test_the_spectrums_legend_gets_rows_of_its_own_under_the_x_axis() -> None:
    """Its legend (each run's first and last step) under the plot, below the rank axis's tick labels: the
    figure and its bottom margin grow by a row per entry past the first (the lesson's spectrum legend lay
    over the ticks)."""
    one = charts.spectrum_json({"a": spectra(1)})["layout"]
    three = charts.spectrum_json({"a": spectra(3), "b": spectra(1, seed=1)})["layout"]
    extra = 2 * legend.LEGEND_ROW  # three entries
    assert three["height"] == one["height"] + extra and three["margin"]["b"] == one["margin"]["b"] + extra


def test_the_reference_label_stays_inside_a_projectors_half_width_plot() -> None:
    """At the projector's 20 px, the untouched encoder's label fits the plot of a half-width chart (about
    440 px, charts.PROJECTOR.width): a longer one ran over the y axis's tick labels (0.92 beside 0.914)."""
    note = charts.baseline_lines(0.914)["annotations"][0]
    wide = len(note["text"]) * charts.PROJECTOR.font * legend.CHAR_WIDTH
    assert wide < charts.PROJECTOR.width * 0.8, note["text"]
    assert "native pooling" in note["hovertext"]
