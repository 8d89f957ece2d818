"""The collapse lens (RankMe, α-ReQ, per-dimension std) against its definitions, written with NumPy/SciPy.

α-ReQ is checked three ways, none of which calls the lab's own helpers: (1) on data of known spectral decay,
Z = G · diag(k^(-α/2)) · Q (G Gaussian, Q a random rotation), so that the covariance eigenvalues fall as
λ_k ∝ k^-α: the estimate is within 0.1 of α at the JEPA evaluation's size (473 × 384) and at N 2,000;
(2) against the definition (Agrawal et al. 2022, as its reference implementation reptrix measures it):
the covariance eigenvalues (``np.cov``, ``np.linalg.eigvalsh``), ranks 11 .. 100 clipped to min(N - 1, d),
a least-squares line of log λ_k on log k with weights 1/k (``np.polyfit`` with w = 1/sqrt(k), as polyfit
weighs the residuals, not their squares); (3) on spectra given exactly, where the answer is known in closed
form (a pure power law; a spectrum whose head and deep tail decay otherwise than the window's ranks).

Tolerances: float64 inputs 1e-9 relative (RankMe, std) and 1e-7 absolute (α, R²); float32 inputs are
compared with the reference of the same float32 values cast to float64, at 1e-6 relative (RankMe, std) and
1e-5 absolute (α, R²).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
import torch

from engine.core.errors import ConfigError
from engine.metrics import alpha_req, collapse_profile, dim_std, dim_std_mean, dim_std_min, rankme
from engine.metrics.collapse import alpha_fit, alpha_req_fit, power_law_fit
from engine.metrics.known_spectra import known_decay

FIRST, LAST = 11, 100  # α-ReQ's rank window (reptrix: fit_range = np.arange(10, 100), 0-based), inclusive


def reference_rankme(z: np.ndarray) -> float:
    sigma = scipy.linalg.svdvals(z.astype(np.float64))
    p = sigma / sigma.sum() + 1e-7
    return float(np.exp(-np.sum(p * np.log(p))))


def reference_alpha_req(z: np.ndarray) -> tuple[float, float]:
    """(α, R²) from the definition: covariance eigenvalues, descending; ranks FIRST .. min(LAST, N - 1, d)
    that are not zero to rounding (> 1e-12 λ1); log λ = c - α log k by least squares with weights 1/k;
    R² = 1 - SS_res / SS_tot of log λ over those ranks, unweighted. NaN with fewer than 3 ranks."""
    z = z.astype(np.float64)
    lam = np.sort(np.linalg.eigvalsh(np.atleast_2d(np.cov(z.T))))[::-1]
    k = np.arange(1, lam.size + 1)
    top = min(LAST, z.shape[0] - 1, lam.size)
    keep = (k >= FIRST) & (k <= top) & (lam > 1e-12 * lam[0])
    if keep.sum() < 3:
        return float("nan"), float("nan")
    x, y = np.log(k[keep]), np.log(lam[keep])
    slope, intercept = np.polyfit(x, y, 1, w=1.0 / np.sqrt(k[keep]))
    r2 = 1.0 - np.sum((y - (intercept + slope * x)) ** 2) / np.sum((y - y.mean()) ** 2)
    return float(-slope), float(r2)


def reference_std(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.float64)
    unit = z / np.linalg.norm(z, axis=1, keepdims=True)
    return np.std(unit, axis=0, ddof=1)


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    low_rank = rng.normal(size=(200, 3)) @ rng.normal(size=(3, 24))  # rank 3 of 24
    power = rng.normal(size=(400, 64)) * (np.arange(1, 65) ** -0.8)  # std ∝ k^-0.8: α ≈ 1.6
    bent = rng.normal(size=(600, 160)) * np.exp(-np.arange(160) / 40.0)  # no power law: the weights matter
    return {
        "gaussian": rng.normal(size=(300, 16)),
        "N < d": rng.normal(size=(10, 64)),
        "N just above the window": rng.normal(size=(20, 64)),
        "rank-deficient": low_rank,
        "shifted": rng.normal(size=(120, 20)) + 5.0,
        "power-law": power,
        "bent": bent,
        "anisotropic": rng.normal(size=(50, 8)) * np.array([10, 5, 1, 1, 0.1, 0.1, 0.01, 0.01]),
    }


@pytest.mark.parametrize("name", list(_inputs()))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_each_measure_equals_its_formula(name: str, dtype: type) -> None:
    z = _inputs()[name].astype(dtype)
    ref = z.astype(np.float64)
    rel, absolute = (1e-9, 1e-7) if dtype == np.float64 else (1e-6, 1e-5)
    assert rankme(z) == pytest.approx(reference_rankme(ref), rel=rel)
    alpha, r2 = reference_alpha_req(ref)
    fit = alpha_req_fit(z)
    assert fit.alpha == pytest.approx(alpha, abs=absolute, nan_ok=True)
    assert fit.r2 == pytest.approx(r2, abs=absolute, nan_ok=True)
    assert alpha_req(z) == pytest.approx(alpha, abs=absolute, nan_ok=True)
    np.testing.assert_allclose(dim_std(z), reference_std(ref), rtol=rel, atol=1e-12)
    assert dim_std_mean(z) == pytest.approx(reference_std(ref).mean(), rel=rel)
    assert dim_std_min(z) == pytest.approx(reference_std(ref).min(), rel=rel)
    profile = collapse_profile(torch.from_numpy(z))
    assert profile["alpha_req"] == pytest.approx(alpha_req(z), abs=1e-12, nan_ok=True)
    assert profile["dim_std_mean"] == pytest.approx(dim_std_mean(z), rel=1e-12)


def test_the_weights_and_the_window_change_the_answer() -> None:
    """On the bent spectrum the 1/k weights and the window both move α by far more than the tolerance, so the
    comparison above can tell a fit without them from the definition."""
    z = _inputs()["bent"]
    lam = np.sort(np.linalg.eigvalsh(np.cov(z.T)))[::-1]
    k = np.arange(FIRST, LAST + 1)
    unweighted = -scipy.stats.linregress(np.log(k), np.log(lam[FIRST - 1 : LAST])).slope
    every_rank = -np.polyfit(np.log(np.arange(1, 161)), np.log(lam), 1, w=1 / np.sqrt(np.arange(1, 161)))[0]
    alpha, _ = reference_alpha_req(z)
    assert abs(unweighted - alpha) > 0.05 and abs(every_rank - alpha) > 0.05


@pytest.mark.parametrize("n", [473, 2000])
@pytest.mark.parametrize("alpha", [1.0, 1.5])
def test_known_decay_is_recovered(alpha: float, n: int) -> None:
    """λ_k ∝ k^-α by construction (d 384): the estimate is within 0.1 of α, with a straight log-log line."""
    for seed in (0, 1):
        fit = alpha_req_fit(known_decay(alpha, n, seed=seed))
        assert abs(fit.alpha - alpha) < 0.1, (alpha, n, seed, fit)
        assert fit.r2 > 0.99 and (fit.first, fit.last) == (FIRST, LAST)


def test_exact_spectra() -> None:
    """Given eigenvalues: a pure power law gives its exponent and R² 1; only the window's ranks count (a
    different head, ranks 1-10, and a different deep tail, ranks 101-384, change nothing); the window is
    clipped to N - 1 and to the non-zero eigenvalues."""
    k = np.arange(1, 385, dtype=np.float64)
    pure = power_law_fit(3.0 * k**-1.3, n_samples=1000)
    assert pure.alpha == pytest.approx(1.3, abs=1e-12) and pure.r2 == pytest.approx(1.0, abs=1e-12)
    spliced = np.where(k < FIRST, FIRST**-1.3 * (k / FIRST) ** -4.0, k**-1.3)  # still descending
    spliced = np.where(k > LAST, LAST**-1.3 * (k / LAST) ** -6.0, spliced)
    assert alpha_fit(spliced, n_samples=1000) == pytest.approx(1.3, abs=1e-12)
    clipped = power_law_fit(np.where(k <= 40, k**-2.0, 0.0), n_samples=1000)  # rank 40
    assert (clipped.first, clipped.last) == (FIRST, 40) and clipped.alpha == pytest.approx(2.0, abs=1e-12)
    assert power_law_fit(k**-2.0, n_samples=31).last == 30  # the covariance of 31 points has rank <= 30
    bent = np.exp(-k / 40.0)
    assert power_law_fit(bent, n_samples=1000).r2 < 0.99  # not a power law: R² says so


def test_what_the_values_mean() -> None:
    """An isotropic cloud: std about 1/√d and α near 0; a power-law cloud (variances ∝ k^-1.6): α near 1.6;
    collapse: std 0 and RankMe 1."""
    data = _inputs()
    assert 1.0 < rankme(data["rank-deficient"]) <= 3.0 + 1e-6
    rng = np.random.default_rng(1)
    cloud = rng.normal(size=(20000, 128))
    assert dim_std_mean(cloud) == pytest.approx(1 / np.sqrt(128), rel=0.02)
    assert abs(alpha_req(cloud)) < 0.1  # Marchenko-Pastur spread only (d / N = 0.0064)
    assert alpha_req(data["power-law"]) == pytest.approx(1.6, abs=0.15)
    collapsed = np.tile(rng.normal(size=(1, 16)), (50, 1)) + 1e-9 * rng.normal(size=(50, 16))
    assert dim_std_mean(collapsed) < 1e-8 and rankme(collapsed) == pytest.approx(1.0, abs=1e-3)


def test_degenerate_inputs() -> None:
    """α-ReQ is NaN (α and R²) when fewer than 3 ranks of the window exist: no variance, rank 1 or 3, and
    N <= 13 (the covariance of N points has rank N - 1 < 13); a window that is not 1 <= first <= last and a
    single sample are errors."""
    rng = np.random.default_rng(3)
    rank_one = np.outer(rng.normal(size=500), rng.normal(size=384))
    for z in (np.ones((500, 384)), rank_one, _inputs()["rank-deficient"], rng.normal(size=(13, 384))):
        fit = alpha_req_fit(z)
        assert np.isnan(fit.alpha) and np.isnan(fit.r2) and np.isnan(alpha_req(z))
    assert np.isfinite(alpha_req(rng.normal(size=(14, 384))))  # ranks 11 .. 13: the fewest that are fitted
    assert np.isnan(collapse_profile(np.ones((500, 384)))["alpha_req"])
    assert np.isnan(alpha_fit(np.zeros(384), n_samples=500))
    with pytest.raises(ConfigError, match="window"):
        alpha_req(rng.normal(size=(50, 8)), window=(0, 100))
    with pytest.raises(ConfigError, match="window"):
        alpha_fit(np.ones(8), n_samples=50, window=(20, 10))
    with pytest.raises(ConfigError, match="at least 2 samples"):
        alpha_req(np.ones((1, 4)))
    with pytest.raises(ConfigError, match="NaN"):
        dim_std(np.array([[np.nan, 1.0], [1.0, 0.0]]))
    zero_row = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    expected = np.std(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), axis=0, ddof=1)
    np.testing.assert_allclose(dim_std(zero_row), expected)  # a zero row counts as the zero vector
