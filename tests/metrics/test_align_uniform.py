"""engine.metrics.align_uniform against Wang & Isola's formulas written naively with torch.pdist.

Tolerance: ATOL = 1e-9 for float64 inputs, 1e-6 for float32 inputs (reference in float64).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import ConfigError
from engine.metrics import alignment, uniformity

ATOL = 1e-9
ATOL32 = 1e-6


def _norm(x: np.ndarray) -> torch.Tensor:
    t = torch.as_tensor(x, dtype=torch.float64)
    return t / t.norm(dim=1, keepdim=True)


def naive_align(x: np.ndarray, y: np.ndarray, alpha: float = 2.0) -> float:
    return (_norm(x) - _norm(y)).norm(dim=1).pow(alpha).mean().item()


def naive_uniform(x: np.ndarray, t: float = 2.0) -> float:
    return torch.pdist(_norm(x), p=2).pow(2).mul(-t).exp().mean().log().item()


@pytest.mark.parametrize(("n", "d"), [(2, 3), (17, 5), (300, 64), (1300, 8)])  # 1300 > one block of 1024
def test_match_naive_formulas(n: int, d: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, d)) * rng.uniform(0.1, 4.0, (n, 1))  # unnormalised rows
    y = x + 0.4 * rng.normal(size=(n, d))
    for alpha in (1.0, 2.0, 3.0):
        assert alignment(x, y, alpha=alpha) == pytest.approx(naive_align(x, y, alpha), abs=ATOL)
    for t in (0.5, 2.0, 5.0):
        assert uniformity(x, t=t) == pytest.approx(naive_uniform(x, t), abs=ATOL)
    assert uniformity(x.astype(np.float32)) == pytest.approx(naive_uniform(x), abs=ATOL32)
    assert alignment(torch.from_numpy(x).float(), y) == pytest.approx(naive_align(x, y), abs=ATOL32)


def test_extremes_and_ranges() -> None:
    x = np.random.default_rng(1).normal(size=(50, 6))
    assert alignment(x, x) == pytest.approx(0.0, abs=1e-12)
    assert alignment(x, -x) == pytest.approx(4.0, abs=1e-12)
    same = np.ones((20, 4))
    assert uniformity(same) == pytest.approx(0.0, abs=1e-12)  # collapsed: the worst value
    opposite = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert uniformity(opposite) == pytest.approx(-8.0, abs=1e-12)  # one pair at distance 2: -t*4
    assert -4.0 - 1e-9 <= uniformity(x) <= 0.0


def test_bad_inputs() -> None:
    x = np.zeros((4, 3))
    with pytest.raises(ConfigError, match="same shape"):
        alignment(x, np.zeros((5, 3)))
    with pytest.raises(ConfigError, match="at least 2 rows"):
        uniformity(np.ones((1, 3)))
    with pytest.raises(ConfigError, match="t must be"):
        uniformity(np.ones((3, 3)), t=0)
    with pytest.raises(ConfigError, match="alpha"):
        alignment(x, x, alpha=-1)
    with pytest.raises(ConfigError, match="NaN"):
        uniformity(np.array([[1.0, np.nan], [0.0, 1.0]]))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 40), d=st.integers(1, 10), seed=st.integers(0, 2**31))
def test_property_matches_pdist(n: int, d: int, seed: int) -> None:
    x = np.random.default_rng(seed).normal(size=(n, d)) + 0.1
    assert uniformity(x) == pytest.approx(naive_uniform(x), abs=ATOL)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_cuda() -> None:
    x = np.random.default_rng(2).normal(size=(5000, 32))
    assert uniformity(torch.from_numpy(x).cuda()) == pytest.approx(uniformity(x), abs=1e-9)
