"""engine.charts.bands against NumPy computed plainly: the shared steps, mean, std (ddof 1) and min–max over
runs of different lengths with NaN rows, and the traces' drawing order and colours."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.charts.bands import BAND_KINDS, band_figure, band_json, band_of, band_traces
from engine.charts.figures import color


def _runs(seed: int) -> list[pd.DataFrame]:
    """Three runs: 20, 15 and 20 steps; run 3 has NaN isoscore rows at steps 4 and 9; run 2 logs every step
    but step 7 is missing; a silhouette column logged only every other step in run 1."""
    rng = np.random.default_rng(seed)
    frames = []
    for length in (20, 15, 20):
        steps = np.arange(length)
        frames.append(pd.DataFrame({"step": steps, "isoscore": rng.normal(size=length)}))
    frames[1] = frames[1][frames[1].step != 7].reset_index(drop=True)
    frames[2].loc[[4, 9], "isoscore"] = np.nan
    return frames


def _plain(frames: list[pd.DataFrame], metric: str) -> tuple[list[int], np.ndarray]:
    """The shared steps and the values matrix (runs × steps), by loops."""
    finite = []
    for frame in frames:
        finite.append({int(s): float(v) for s, v in zip(frame.step, frame[metric]) if not math.isnan(v)})
    shared = sorted(set.intersection(*(set(d) for d in finite)))
    return shared, np.array([[d[s] for s in shared] for d in finite])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_std_band_equals_numpy(seed: int) -> None:
    frames = _runs(seed)
    band = band_of(frames, "isoscore", kind="std")
    shared, values = _plain(frames, "isoscore")
    assert band.steps.tolist() == shared
    assert 7 not in shared and 4 not in shared and 9 not in shared and max(shared) == 14
    mean = values.sum(axis=0) / len(frames)
    std = np.sqrt(((values - mean) ** 2).sum(axis=0) / (len(frames) - 1))
    np.testing.assert_allclose(band.mean, mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(band.low, mean - std, rtol=0, atol=1e-12)
    np.testing.assert_allclose(band.high, mean + std, rtol=0, atol=1e-12)
    assert band.runs == 3


def test_minmax_band_equals_numpy() -> None:
    frames = _runs(5)
    band = band_of(frames, "isoscore", kind="minmax")
    _, values = _plain(frames, "isoscore")
    np.testing.assert_array_equal(band.low, values.min(axis=0))
    np.testing.assert_array_equal(band.high, values.max(axis=0))
    assert np.all(band.low <= band.mean) and np.all(band.mean <= band.high)


def test_single_run_has_zero_width_and_missing_metric_is_empty() -> None:
    frame = _runs(0)[0]
    band = band_of([frame], "isoscore")
    np.testing.assert_array_equal(band.low, band.high)
    assert len(band_of([frame], "silhouette").steps) == 0
    assert len(band_of([], "isoscore").steps) == 0
    with pytest.raises(ValueError, match="band kind"):
        band_of([frame], "isoscore", kind="iqr")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(float("nan"))), min_size=0, max_size=12),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(BAND_KINDS),
)
def test_any_runs_band_matches_plain(columns: list[list[float]], kind: str) -> None:
    frames = [pd.DataFrame({"step": np.arange(len(c)) * 2, "isoscore": c}) for c in columns]
    band = band_of(frames, "isoscore", kind=kind)
    shared, values = _plain(frames, "isoscore")
    assert band.steps.tolist() == [float(s) for s in shared]
    if not shared:
        return
    np.testing.assert_allclose(band.mean, values.mean(axis=0), rtol=1e-9, atol=1e-6)
    if kind == "minmax":
        np.testing.assert_array_equal(band.low, values.min(axis=0))
    elif len(frames) > 1:
        np.testing.assert_allclose(band.high - band.mean, values.std(axis=0, ddof=1), rtol=1e-9, atol=1e-6)


def test_traces_order_colour_and_fill() -> None:
    frames = _runs(0)
    traces = band_traces("lr=1e-3", frames, "isoscore", 2, show_runs=True)
    assert [t.get("fill") for t in traces] == [None, None, None, None, "tonexty", None]
    assert all(t["line"]["color"] == color(2) for t in traces)
    assert traces[4]["fillcolor"].startswith("rgba(") and traces[-1]["name"].startswith("lr=1e-3 (mean of 3")
    np.testing.assert_array_equal(traces[3]["y"], band_of(frames, "isoscore").low)
    without = band_traces("lr=1e-3", frames, "isoscore", 2)
    assert len(without) == 3


def test_figure_one_colour_per_cell() -> None:
    cells = {"a": _runs(0), "b": _runs(1)}
    spec = band_json(cells, "isoscore", kind="minmax")
    means = [t for t in spec["data"] if t.get("legendgroup") and t.get("showlegend", True)]
    assert [t["line"]["color"] for t in means] == [color(0), color(1)]
    assert "min–max" in means[0]["name"]
    fig = band_figure(cells, "isoscore")
    assert len(fig.data) == 6
