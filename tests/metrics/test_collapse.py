"""The collapse lens (RankMe, α-ReQ, per-dimension std) against its formulas written plainly with NumPy/SciPy.

Tolerances: float64 inputs 1e-9 relative (RankMe, std) and 1e-7 absolute (α, a least-squares slope of logs);
float32 inputs are compared with the reference of the same float32 values cast to float64, at 1e-6 relative
(RankMe, std) and 1e-5 absolute (α).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
import torch

from engine.errors import ConfigError
from engine.metrics import alpha_req, collapse_profile, dim_std, dim_std_mean, dim_std_min, rankme


def reference_rankme(z: np.ndarray) -> float:
    sigma = scipy.linalg.svdvals(z.astype(np.float64))
    p = sigma / sigma.sum() + 1e-7
    return float(np.exp(-np.sum(p * np.log(p))))


def reference_alpha(z: np.ndarray) -> float:
    """Covariance eigenvalues (np.cov), ranks 1 .. min(N - 1, d), zero ones (<= 1e-12 λ1) left out, and the
    slope of log λ on log k by scipy's linregress; α is minus the slope."""
    z = z.astype(np.float64)
    lam = np.sort(np.linalg.eigvalsh(np.atleast_2d(np.cov(z.T))))[::-1]
    last = min(z.shape[0] - 1, z.shape[1])
    k = np.arange(1, len(lam) + 1)
    keep = (k <= last) & (lam > 1e-12 * lam[0])
    return -scipy.stats.linregress(np.log(k[keep]), np.log(lam[keep])).slope


def reference_std(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.float64)
    unit = z / np.linalg.norm(z, axis=1, keepdims=True)
    return np.std(unit, axis=0, ddof=1)


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    low_rank = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 24))  # rank 3 of 24
    power = rng.normal(size=(400, 32)) * (np.arange(1, 33) ** -0.8)  # std ∝ k^-0.8: α ≈ 1.6
    return {
        "gaussian": rng.normal(size=(300, 16)),
        "N < d": rng.normal(size=(10, 64)),
        "rank-deficient": low_rank,
        "shifted": rng.normal(size=(120, 20)) + 5.0,
        "power-law": power,
        "anisotropic": rng.normal(size=(50, 8)) * np.array([10, 5, 1, 1, 0.1, 0.1, 0.01, 0.01]),
    }


@pytest.mark.parametrize("name", list(_inputs()))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_each_measure_equals_its_formula(name: str, dtype: type) -> None:
    z = _inputs()[name].astype(dtype)
    ref = z.astype(np.float64)
    rel, absolute = (1e-9, 1e-7) if dtype == np.float64 else (1e-6, 1e-5)
    assert rankme(z) == pytest.approx(reference_rankme(ref), rel=rel)
    assert alpha_req(z) == pytest.approx(reference_alpha(ref), abs=absolute)
    np.testing.assert_allclose(dim_std(z), reference_std(ref), rtol=rel, atol=1e-12)
    assert dim_std_mean(z) == pytest.approx(reference_std(ref).mean(), rel=rel)
    assert dim_std_min(z) == pytest.approx(reference_std(ref).min(), rel=rel)
    profile = collapse_profile(torch.from_numpy(z))
    assert profile["alpha_req"] == pytest.approx(alpha_req(z), abs=1e-12)
    assert profile["dim_std_mean"] == pytest.approx(dim_std_mean(z), rel=1e-12)


def test_what_the_values_mean() -> None:
    """Rank-3 data: RankMe at most 3 and α fitted on the 3 non-zero eigenvalues only; an isotropic cloud:
    std about 1/√d and α near 0; a power-law cloud (variances ∝ k^-1.6): α near 1.6; collapse: std 0."""
    data = _inputs()
    assert 1.0 < rankme(data["rank-deficient"]) <= 3.0 + 1e-6
    assert np.isfinite(alpha_req(data["rank-deficient"]))
    rng = np.random.default_rng(1)
    cloud = rng.normal(size=(20000, 16))
    assert dim_std_mean(cloud) == pytest.approx(1 / np.sqrt(16), rel=0.02)
    assert abs(alpha_req(cloud)) < 0.05
    assert alpha_req(data["power-law"]) == pytest.approx(1.6, abs=0.15)
    collapsed = np.tile(rng.normal(size=(1, 16)), (50, 1)) + 1e-9 * rng.normal(size=(50, 16))
    assert dim_std_mean(collapsed) < 1e-8 and rankme(collapsed) == pytest.approx(1.0, abs=1e-3)


def test_degenerate_inputs() -> None:
    assert np.isnan(alpha_req(np.ones((5, 4))))  # no variance at all
    assert np.isnan(alpha_req(np.array([[0.0, 1.0], [1.0, 0.0]])))  # N = 2: one rank, no line to fit
    with pytest.raises(ConfigError, match="at least 2 samples"):
        alpha_req(np.ones((1, 4)))
    with pytest.raises(ConfigError, match="NaN"):
        dim_std(np.array([[np.nan, 1.0], [1.0, 0.0]]))
    zero_row = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    expected = np.std(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), axis=0, ddof=1)
    np.testing.assert_allclose(dim_std(zero_row), expected)  # a zero row counts as the zero vector
