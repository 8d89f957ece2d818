"""engine.metrics.correlation against scipy.stats.spearmanr / pearsonr. Tolerance: ATOL = 1e-12."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr

from engine.core.errors import ConfigError
from engine.metrics import series_correlation, sts_spearman

ATOL = 1e-12


def test_sts_spearman_matches_scipy_with_ties() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=(200, 16))
    b = a + rng.normal(size=(200, 16))
    gold = rng.integers(0, 6, 200).astype(float)  # many ties, averaged ranks
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    expected = spearmanr(cos, gold).statistic
    assert sts_spearman(a, b, gold) == pytest.approx(expected, abs=ATOL)
    assert sts_spearman(torch.from_numpy(a).float(), b.astype(np.float32), gold.tolist()) == pytest.approx(
        expected, abs=1e-6
    )


def test_series_correlation_skips_missing_pairs() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=60)
    y = -x + 0.3 * rng.normal(size=60)
    y[[3, 10]] = np.nan
    x[20] = np.nan
    keep = ~(np.isnan(x) | np.isnan(y))
    r, rho = series_correlation(x, y)
    assert r == pytest.approx(pearsonr(x[keep], y[keep]).statistic, abs=ATOL)
    assert rho == pytest.approx(spearmanr(x[keep], y[keep]).statistic, abs=ATOL)
    listed = [None if np.isnan(v) else float(v) for v in y]
    assert series_correlation(x.tolist(), listed) == pytest.approx((r, rho), abs=ATOL)


def test_degenerate_series_give_nan() -> None:
    assert all(math.isnan(v) for v in series_correlation([1.0], [2.0]))
    assert all(math.isnan(v) for v in series_correlation([1.0, np.nan, 3.0], [np.nan, 2.0, 1.0]))
    r, rho = series_correlation([1.0, 2.0, 3.0], [5.0, 5.0, 5.0])
    assert math.isnan(r) and math.isnan(rho)


def test_bad_inputs() -> None:
    with pytest.raises(ConfigError, match="equal length"):
        series_correlation([1, 2, 3], [1, 2])
    a = np.ones((4, 3))
    with pytest.raises(ConfigError, match="same shape"):
        sts_spearman(a, np.ones((4, 2)), [1, 2, 3, 4])
    with pytest.raises(ConfigError, match="one gold score per pair"):
        sts_spearman(a, a, [1, 2, 3])
    with pytest.raises(ConfigError, match="NaN"):
        sts_spearman(a, a, [1, 2, np.nan, 4])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.floats(-1e3, 1e3)), min_size=3, max_size=40))
@example(
    [(0, 341.58320785089415), (0, 341.58320785089415), (1, 341.58320785089415)]
)  # constant y, mean rounds
@example([(0, 0.0), (0, 0.0), (1, 5.705856286113812e-190)])  # squares of the deviations underflow
def test_property_matches_scipy(pairs: list[tuple[int, float]]) -> None:
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs])
    r, rho = series_correlation(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert math.isnan(r) and math.isnan(rho)
        return
    assert r == pytest.approx(pearsonr(x, y).statistic, abs=1e-9)
    assert rho == pytest.approx(spearmanr(x, y).statistic, abs=1e-9)
