"""engine.metrics.isoscore against IsoScore 2.0.1 (``IsoScore.IsoScore.IsoScore`` / ``IsoScore_star``).

Tolerance: ATOL = 1e-6 (the reference rounds its sqrt(d) constants to float32, ~1e-8 here; ours sums
the covariance in float64, from float32 products for float32 input), inside the project's 1e-5
requirement. The reference gets float64 numpy input.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from IsoScore import IsoScore as ref
from scipy.stats import special_ortho_group

from engine.core.errors import ConfigError
from engine.metrics import FewSamplesWarning, isoscore, isoscore_cap, isoscore_star
from engine.metrics.isoscore import isoscore_of_covariance

ATOL = 1e-6
pytestmark = pytest.mark.filterwarnings("ignore:__array_wrap__:DeprecationWarning")  # inside IsoScore 2.0.1


def _one_thread(fn, *args):
    """The reference's threaded svdvals can take seconds on a busy 2-core machine; one thread is fast."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return float(fn(*args))
    finally:
        torch.set_num_threads(threads)


def _ref(x: np.ndarray) -> float:
    return _one_thread(ref.IsoScore, np.asarray(x, dtype=np.float64))


def _ref_star(x: np.ndarray, zeta: float, c0: np.ndarray) -> float:
    return _one_thread(ref.IsoScore_star, np.asarray(x, dtype=np.float64), c0, zeta)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewSamplesWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize(("n", "d"), [(50, 2), (200, 7), (1000, 64), (1000, 384), (300, 30)])
@pytest.mark.parametrize("kind", ["isotropic", "scaled", "correlated"])
def test_matches_reference_random(n: int, d: int, kind: str) -> None:
    rng = np.random.default_rng(n + d)
    x = rng.normal(size=(n, d))
    if kind == "scaled":
        x *= rng.uniform(0.01, 10.0, d)
    elif kind == "correlated":
        x = x @ rng.normal(size=(d, d)) + 3.0
    assert isoscore(x) == pytest.approx(_ref(x), abs=ATOL)


def test_rank_deficient_and_n_below_d() -> None:
    rng = np.random.default_rng(1)
    low = rng.normal(size=(500, 4)) @ rng.normal(size=(4, 50))  # rank 4 in 50 dims
    assert isoscore(low) == pytest.approx(_ref(low), abs=ATOL)
    wide = rng.normal(size=(20, 100))
    with pytest.warns(FewSamplesWarning, match="capped"):
        value = isoscore(wide)
    assert value == pytest.approx(_ref(wide), abs=ATOL)
    assert value <= isoscore_cap(20, 100) + 1e-12


@pytest.mark.parametrize(("k", "d"), [(1, 5), (2, 5), (3, 10), (10, 10)])
def test_k_equal_variance_dimensions_score_k_minus_1_over_d_minus_1(k: int, d: int) -> None:
    eye = np.eye(d)[:k]
    x = np.concatenate([eye, -eye])  # +-e_1..e_k: equal variance in k dims, none elsewhere
    assert _quiet(isoscore, x) == pytest.approx((k - 1) / (d - 1), abs=1e-12)
    assert _quiet(isoscore, x) == pytest.approx(_ref(x), abs=ATOL)


def test_dtypes_devices_and_inputs_agree() -> None:
    x = np.random.default_rng(2).normal(size=(400, 16)) * np.linspace(0.5, 2, 16)
    value = isoscore(x)
    assert isinstance(value, float)
    assert isoscore(torch.from_numpy(x)) == value
    assert isoscore(x.astype(np.float32)) == pytest.approx(value, abs=ATOL)
    assert isoscore(x.tolist()) == value
    assert isoscore(torch.from_numpy(x).half()) == pytest.approx(value, abs=1e-3)


def _spectral(x: np.ndarray) -> float:
    """The module docstring's first recipe, step by step: covariance spectrum, normalise, defect, rescale."""
    d = x.shape[1]
    sigma = np.abs(np.linalg.eigvalsh(np.cov(x.T)))
    normed = sigma * np.sqrt(d) / np.linalg.norm(sigma)
    defect = np.linalg.norm(normed - 1) / np.sqrt(2 * (d - np.sqrt(d)))
    return ((d - defect**2 * (d - np.sqrt(d))) ** 2 - d) / (d * (d - 1))


@pytest.mark.parametrize("seed", range(6))
def test_participation_ratio_form_equals_the_spectral_recipe(seed: int) -> None:
    """IsoScore = (PR - 1)/(d - 1), PR = tr(C)^2/||C||_F^2: the same number as the spectrum, to rounding,
    also for rank-deficient covariances and spread-out spectra."""
    rng = np.random.default_rng(seed)
    n, d = [(500, 20), (30, 64), (2000, 384), (100, 3), (64, 64), (1000, 50)][seed]
    x = (
        rng.normal(size=(n, d))
        * rng.lognormal(sigma=2.0, size=d)
        @ special_ortho_group.rvs(d, random_state=seed)
    )
    assert _quiet(isoscore, x) == pytest.approx(_spectral(x), abs=1e-12)


@pytest.mark.parametrize(("n", "d"), [(30, 64), (200, 12)])
def test_the_kernel_reads_any_matrix_of_the_same_spectrum(n: int, d: int) -> None:
    """The one kernel against the paper's recipe (``_spectral``): from the d x d covariance, from the
    N x N centred Gram matrix / (N - 1) (same non-zero eigenvalues) with d given, and from diag(sigma)."""
    x = np.random.default_rng(n).normal(size=(n, d)) * np.linspace(0.3, 3.0, d)
    expected = _spectral(x)
    centred = torch.from_numpy(x - x.mean(axis=0))
    gram = centred @ centred.T / (n - 1)
    cov = centred.T @ centred / (n - 1)
    diag = torch.diag(torch.from_numpy(np.abs(np.linalg.eigvalsh(cov.numpy()))))
    assert isoscore_of_covariance(cov).dtype == torch.float64
    assert float(isoscore_of_covariance(cov)) == pytest.approx(expected, abs=1e-12)
    assert float(isoscore_of_covariance(gram, d)) == pytest.approx(expected, abs=1e-12)
    assert float(isoscore_of_covariance(diag)) == pytest.approx(expected, abs=1e-12)
    assert float(isoscore_of_covariance(cov.float())) == pytest.approx(expected, abs=1e-6)


def test_the_kernels_guards_give_nan() -> None:
    """d < 2 (no (d - 1) to divide by) and an all-zero covariance (no spectrum) are NaN, not an error."""
    assert np.isnan(float(isoscore_of_covariance(torch.ones(1, 1, dtype=torch.float64))))
    assert np.isnan(float(isoscore_of_covariance(torch.ones(5, 5, dtype=torch.float64), d=1)))
    assert np.isnan(float(isoscore_of_covariance(torch.zeros(3, 3, dtype=torch.float64))))


def test_float32_products_keep_float64_accuracy_far_from_the_origin() -> None:
    """Centring is done in float64 before the float32 products, so a large common offset costs nothing."""
    x = np.random.default_rng(3).normal(size=(3000, 384)) * np.linspace(0.1, 1, 384) + 1e4
    assert isoscore(x.astype(np.float32)) == pytest.approx(
        isoscore(x.astype(np.float32).astype(np.float64)), abs=1e-6
    )


def test_constant_points_give_nan_like_reference() -> None:
    x = np.ones((10, 3))
    assert np.isnan(isoscore(x)) and np.isnan(_ref(x))


@pytest.mark.parametrize("shape", [(1, 5), (0, 5), (10, 1), (10, 0)])
def test_too_small_is_one_line_config_error(shape: tuple[int, int]) -> None:
    with pytest.raises(ConfigError, match="at least 2 samples and 2 dimensions"):
        isoscore(np.zeros(shape))


def test_bad_inputs() -> None:
    with pytest.raises(ConfigError, match="2-D"):
        isoscore(np.zeros(5))
    with pytest.raises(ConfigError, match="NaN"):
        isoscore(np.array([[0.0, 1.0], [np.inf, 2.0], [1.0, 1.0]]))
    with pytest.raises(ConfigError, match="NaN"):
        isoscore_star(np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]), 0.5)
    with pytest.raises(ConfigError, match="too large"):
        isoscore(np.array([[0.0, 1.0], [1e300, 2.0], [1.0, 1.0]]))
    with pytest.raises(ConfigError, match="numeric"):
        isoscore([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("zeta", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_star_matches_reference(zeta: float) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 40)) * rng.uniform(0.1, 2, 40)  # n < d: where shrinkage matters
    eye = np.eye(40)
    assert _quiet(isoscore_star, x, zeta) == pytest.approx(_ref_star(x, zeta, eye), abs=ATOL)
    a = rng.normal(size=(40, 40))
    c0 = a @ a.T / 40  # a PSD prior covariance
    assert _quiet(isoscore_star, x, zeta, c0) == pytest.approx(_ref_star(x, zeta, c0), abs=ATOL)
    skew = rng.normal(size=(40, 40))  # not symmetric: singular values, like the reference
    assert _quiet(isoscore_star, x, zeta, skew) == pytest.approx(_ref_star(x, zeta, skew), abs=ATOL)


def test_star_edges() -> None:
    x = np.random.default_rng(4).normal(size=(100, 8))
    assert isoscore_star(x, 0.0) == pytest.approx(isoscore(x), abs=1e-12)
    assert isoscore_star(x, 1.0) == pytest.approx(1.0, abs=1e-12)
    for bad in (-0.1, 1.5):
        with pytest.raises(ConfigError, match="zeta"):
            isoscore_star(x, bad)
    with pytest.raises(ConfigError, match="C0"):
        isoscore_star(x, 0.5, np.eye(7))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 80), d=st.integers(2, 20), seed=st.integers(0, 2**31))
def test_property_range_reference_and_invariances(n: int, d: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)) * rng.uniform(0.1, 5.0, d)
    value = _quiet(isoscore, x)
    assert -1e-9 <= value <= isoscore_cap(n, d) + 1e-9
    assert value == pytest.approx(_ref(x), abs=ATOL)
    q = special_ortho_group.rvs(d, random_state=seed % 2**32)
    moved = 7.0 * x @ q + rng.normal(size=d)  # rotation, scaling and translation leave it unchanged
    assert _quiet(isoscore, moved) == pytest.approx(value, abs=1e-7)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_matches_cpu() -> None:
    x = np.random.default_rng(5).normal(size=(2000, 64)) * np.linspace(0.2, 3, 64)
    assert isoscore(torch.from_numpy(x).cuda()) == pytest.approx(isoscore(x), abs=1e-9)
    assert isoscore_star(torch.from_numpy(x).cuda(), 0.3) == pytest.approx(isoscore_star(x, 0.3), abs=1e-9)
