"""engine.metrics.isotropy (spectrum, RankMe, average cosine, partition isotropy, the profile)
against independent plain formulas written here with numpy/scipy.

Inputs: random, anisotropic (a strong common mean direction; low rank plus noise), and N < d, each in
float32 and float64. References run in float64 on the very values given (float32 data upcast), so they
are the exact answer for that input.

Tolerances (the issue asks 1e-4, relative for the spectrum and RankMe):
- RTOL = 1e-4 relative for spectrum eigenvalues and RankMe, ATOL = 1e-4 absolute for the average cosine
  and the partition isotropy (a value in [0, 1]; where it is tiny the test is relative, REL = 1e-4).
- Eigenvalues that are zero by rank (N <= d) are compared absolutely: |lambda| <= ZERO * lambda_max,
  ZERO = 1e-10 (both sides are float64 rounding there).
Observed errors are far smaller (~1e-12 float64, ~1e-6 partition in float32 exp2): the float64 cases
are also checked at TIGHT = 1e-9.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
from scipy.spatial.distance import pdist
from scipy.special import logsumexp
from scipy.stats import special_ortho_group

from engine.core.errors import ConfigError
from engine.metrics import (
    FewSamplesWarning,
    average_cosine,
    class_alignment,
    isoscore,
    isotropy_profile,
    partition_isotropy,
    rankme,
    spectrum,
)

RTOL = 1e-4
ATOL = 1e-4
REL = 1e-4
ZERO = 1e-10
TIGHT = 1e-9


# ------------------------------------------------------------------------------------------ inputs


def _random(n: int, d: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d))


def _common_mean(n: int, d: int, seed: int) -> np.ndarray:
    """Anisotropic: every point shares a strong mean direction (average cosine near 1)."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=d)
    return rng.normal(size=(n, d)) + 6.0 * direction / np.linalg.norm(direction) * np.sqrt(d)


def _low_rank(n: int, d: int, seed: int) -> np.ndarray:
    """Anisotropic: rank 3 signal (variance ~100) plus small noise (variance 1e-4): eigenvalues span 1e6."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) * 10.0 / np.sqrt(3) + 0.01 * rng.normal(
        size=(n, d)
    )


KINDS = {"random": _random, "common_mean": _common_mean, "low_rank": _low_rank}
SHAPES = [(400, 12), (1300, 40), (30, 80)]  # 1300 rows: several row chunks; 30 x 80: N < d
DTYPES = [np.float32, np.float64]


def _cases():
    for (kind, make), (n, d), dtype in itertools.product(KINDS.items(), SHAPES, DTYPES):
        yield pytest.param(make(n, d, n + d).astype(dtype), id=f"{kind}-{n}x{d}-{np.dtype(dtype).name}")


# ------------------------------------------------------------------------------ plain references


def ref_spectrum(x: np.ndarray) -> np.ndarray:
    return np.linalg.eigvalsh(np.atleast_2d(np.cov(x.astype(np.float64).T)))[::-1]


def ref_rankme(x: np.ndarray) -> float:
    sigma = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    p = sigma / sigma.sum() + 1e-7
    return float(np.exp(-(p * np.log(p)).sum()))


def ref_average_cosine_loop(x: np.ndarray) -> float:
    """O(N^2) double loop over ordered pairs i != j (zero rows: cosine 0)."""
    x = x.astype(np.float64)
    norms = np.linalg.norm(x, axis=1)
    total, n = 0.0, len(x)
    for i in range(n):
        for j in range(n):
            if i != j and norms[i] > 0 and norms[j] > 0:
                total += x[i] @ x[j] / (norms[i] * norms[j])
    return total / (n * (n - 1))


def ref_average_cosine_pdist(x: np.ndarray) -> float:
    return float(np.mean(1.0 - pdist(x.astype(np.float64), "cosine")))


def ref_projections(x: np.ndarray) -> np.ndarray:
    """x_i . c for the eigenvectors c of X^T X (the columns of eigh's matrix)."""
    x = x.astype(np.float64)
    _, vectors = np.linalg.eigh(x.T @ x)
    return x @ vectors


def ref_partition_exp(x: np.ndarray) -> float:
    """Mu & Viswanath with explicit exp: Z(c) = sum_i exp(c . x_i) over both signs of every eigenvector."""
    p = ref_projections(x)
    z = np.concatenate([np.exp(p).sum(axis=0), np.exp(-p).sum(axis=0)])
    return float(z.min() / z.max())


def ref_partition_log(x: np.ndarray) -> float:
    """The same in the log domain (scipy logsumexp), for inputs where exp overflows."""
    p = ref_projections(x)
    log_z = np.concatenate([logsumexp(p, axis=0), logsumexp(-p, axis=0)])
    return float(np.exp(log_z.min() - log_z.max()))


# -------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("x", _cases())
def test_spectrum_matches_eigvalsh_of_np_cov(x: np.ndarray) -> None:
    """RTOL = 1e-4 relative per eigenvalue; rank-zero ones |lambda| <= 1e-10 lambda_max; float64 also
    1e-9 relative + 1e-12 lambda_max absolute (the float64 rounding of any eigenvalue solver)."""
    ref = ref_spectrum(x)
    ours = spectrum(x)
    assert ours.shape == (x.shape[1],) and ours.dtype == np.float64
    assert np.all(np.diff(ours) <= 0) and np.all(ours >= 0)
    top = ref[0]
    nonzero = ref > ZERO * top * 10
    np.testing.assert_allclose(ours[nonzero], ref[nonzero], rtol=RTOL, atol=0)
    if x.dtype == np.float64:  # both sides round eigenvalues to ~eps * lambda_max in absolute terms
        np.testing.assert_allclose(ours, np.clip(ref, 0, None), rtol=TIGHT, atol=1e-12 * top)
    assert np.all(np.abs(ours[~nonzero]) <= ZERO * top * 10)
    if x.shape[0] <= x.shape[1]:  # rank <= N - 1: the trailing d - N + 1 are zero
        assert np.all(ours[x.shape[0] - 1 :] <= ZERO * top)


@pytest.mark.parametrize("x", _cases())
def test_rankme_matches_the_svd_reference(x: np.ndarray) -> None:
    """RTOL = 1e-4 relative (float32 input), 1e-9 (float64)."""
    rtol = TIGHT if x.dtype == np.float64 else RTOL
    assert rankme(x) == pytest.approx(ref_rankme(x), rel=rtol)


@pytest.mark.parametrize("x", _cases())
def test_average_cosine_matches_pdist(x: np.ndarray) -> None:
    """ATOL = 1e-4 (float32), 1e-9 (float64) against 1 - scipy's cosine distance over all pairs."""
    atol = TIGHT if x.dtype == np.float64 else ATOL
    assert average_cosine(x) == pytest.approx(ref_average_cosine_pdist(x), abs=atol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_average_cosine_matches_double_loop_with_zero_rows(dtype) -> None:
    """ATOL = 1e-4 (float32), 1e-9 (float64); zero rows have cosine 0 with every point, still count in N."""
    atol = TIGHT if dtype == np.float64 else ATOL
    for make in KINDS.values():
        x = make(60, 7, 3).astype(dtype)
        assert average_cosine(x) == pytest.approx(ref_average_cosine_loop(x), abs=atol)
        x[[4, 9, 30]] = 0.0
        assert average_cosine(x) == pytest.approx(ref_average_cosine_loop(x), abs=atol)
    assert average_cosine(np.ones((5, 3), dtype=dtype)) == pytest.approx(1.0, abs=1e-12)
    assert average_cosine(np.zeros((5, 3), dtype=dtype)) == 0.0


@pytest.mark.parametrize("x", _cases())
def test_partition_isotropy_matches_explicit_exp(x: np.ndarray) -> None:
    """Well-scaled inputs (rows scaled to norm ~1, so exp is fine): ATOL = 1e-4 absolute and REL = 1e-4
    relative (I can be small for the anisotropic kinds); float64 also to 1e-9 relative."""
    x = (x / np.linalg.norm(x, axis=1).mean()).astype(x.dtype)
    ref = ref_partition_exp(x)
    ours = partition_isotropy(x)
    assert 0.0 <= ours <= 1.0
    assert ours == pytest.approx(ref, rel=REL, abs=ATOL)
    assert ours == pytest.approx(ref, rel=REL)
    if x.dtype == np.float64:
        assert ours == pytest.approx(ref_partition_log(x), rel=1e-6)


@pytest.mark.parametrize("x", _cases())
def test_partition_isotropy_unscaled_matches_log_domain(x: np.ndarray) -> None:
    """The same inputs unscaled (projections up to ~150 for common_mean): REL = 1e-4 relative."""
    assert partition_isotropy(x) == pytest.approx(ref_partition_log(x), rel=REL, abs=1e-300)


def _large_scale(dtype) -> np.ndarray:
    """Points at +-s_k along d rotated axes (s_k = 720 + 0.1 k, distinct: well-defined eigenvectors) plus
    small noise points: exp(c . x) overflows float64, yet I = exp(-0.1 (d - 1)) is far from 0."""
    d = 6
    rng = np.random.default_rng(7)
    axes = np.diag(720.0 + 0.1 * np.arange(d))
    x = np.concatenate([axes, -axes, 0.3 * rng.normal(size=(40, d))]) @ special_ortho_group.rvs(
        d, random_state=8
    )
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_partition_isotropy_large_scale_never_overflows(dtype) -> None:
    """REL = 1e-4 relative against the log-domain formula, where explicit exp overflows to inf."""
    x = _large_scale(dtype)
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(ref_projections(x))).any()  # the naive formula cannot be evaluated here
    ref = ref_partition_log(x)
    assert 0.5 < ref < 0.7
    assert partition_isotropy(x) == pytest.approx(ref, rel=REL)
    assert partition_isotropy(torch.from_numpy(x)) == pytest.approx(ref, rel=REL)


def test_partition_isotropy_uses_columns_and_dot_products() -> None:
    """A case where the public reference's two bugs (eigenvector rows; elementwise products) change the
    answer: ours equals the correct formula (REL = 1e-4), not the buggy one."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=(200, 4)) @ rng.normal(size=(4, 4)) * 0.4 + np.array([0.5, -0.2, 0.1, 0.3])
    _, vectors = np.linalg.eigh(x.T @ x)
    buggy = [np.exp(x * row).sum() for row in vectors]  # rows and elementwise products, as in the bug
    buggy_i = min(buggy) / max(buggy)
    correct = ref_partition_exp(x)
    assert abs(buggy_i - correct) > 0.01
    assert partition_isotropy(x) == pytest.approx(correct, rel=REL)


def test_partition_isotropy_is_sign_and_rotation_invariant() -> None:
    """Both signs of each eigenvector are candidates: I is unchanged by x -> -x and by rotations, to the
    1e-6 relative of the float32 exp2 terms (documented in ``_log_partition``)."""
    x = _common_mean(300, 9, 4) / 20.0
    value = partition_isotropy(x)
    assert partition_isotropy(-x) == pytest.approx(value, rel=1e-6)
    q = special_ortho_group.rvs(9, random_state=5)
    assert partition_isotropy(x @ q) == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("x", _cases())
def test_profile_equals_the_single_functions(x: np.ndarray) -> None:
    """One pass, same code: equal to 1e-9 relative (not bit-equal: the CPU workers take row chunks in a
    varying order, so float64 sums differ in the last bits); IsoScore equals isoscore() to 1e-9 (float64)
    or 1e-6 (float32: isoscore multiplies in float32, the profile in float64)."""
    labels = np.arange(x.shape[0]) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewSamplesWarning)
        profile = isotropy_profile(x, labels)
        iso = isoscore(x)
    np.testing.assert_allclose(profile["spectrum"], spectrum(x), rtol=TIGHT, atol=1e-12 * spectrum(x)[0])
    assert profile["rankme"] == pytest.approx(rankme(x), rel=TIGHT)
    assert profile["average_cosine"] == pytest.approx(average_cosine(x), rel=TIGHT, abs=1e-15)
    assert profile["partition_isotropy"] == pytest.approx(partition_isotropy(x), rel=TIGHT)
    assert profile["class_alignment"] == pytest.approx(class_alignment(x, labels), rel=TIGHT)
    assert profile["isoscore"] == pytest.approx(iso, abs=TIGHT if x.dtype == np.float64 else 1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewSamplesWarning)
        assert "class_alignment" not in isotropy_profile(x)


def test_profile_warns_for_few_samples_like_isoscore() -> None:
    with pytest.warns(FewSamplesWarning):
        isotropy_profile(_random(10, 20, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewSamplesWarning)
        spectrum(_random(10, 20, 0))  # the single functions have no cap to warn about
        rankme(_random(10, 20, 0))


def test_known_values() -> None:
    """Closed forms (1e-12 unless stated): k equal-variance directions; points on one line."""
    k, d = 3, 8
    x = np.zeros((2 * k, d))
    x[np.arange(k), np.arange(k)] = 1.0
    x[k + np.arange(k), np.arange(k)] = -1.0  # +-e_1..e_k: covariance 2/(2k-1) on k axes
    np.testing.assert_allclose(spectrum(x), [2 / (2 * k - 1)] * k + [0.0] * (d - k), atol=1e-12)
    assert rankme(x) == pytest.approx(ref_rankme(x), rel=1e-12)
    assert rankme(x) == pytest.approx(3.0, abs=1e-4)  # k equal singular values: k (+ epsilon's share)
    assert average_cosine(x) == pytest.approx(-1.0 / (2 * k - 1), abs=1e-12)  # each point has one opposite
    line = np.outer(np.arange(1.0, 11.0), np.ones(4))
    assert rankme(line) == pytest.approx(1.0, abs=1e-5)
    assert average_cosine(line) == pytest.approx(1.0, abs=1e-12)
    assert np.isnan(rankme(np.zeros((4, 3))))


@pytest.mark.parametrize("fn", [spectrum, rankme, average_cosine, partition_isotropy, isotropy_profile])
def test_bad_inputs_are_one_line_config_errors(fn) -> None:
    for bad, words in [
        (np.zeros((1, 3)), "at least 2 samples"),
        (np.zeros(5), "2-D"),
        (np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0]]), "NaN"),
        (np.array([[1.0, np.inf], [0.0, 1.0], [1.0, 1.0]]), "NaN or infinity"),
        (np.array([["a", "b"], ["c", "d"]]), "numeric"),
    ]:
        with pytest.raises(ConfigError) as info:
            fn(bad)
        assert words in str(info.value) and "\n" not in str(info.value)


def test_torch_inputs_and_dtypes_agree() -> None:
    """numpy / torch, float64 / float32 / float16 / int inputs give the same values (1e-9 for equal data)."""
    x = np.round(_common_mean(200, 10, 9) * 4)  # integers: exact in every dtype used here
    ref = isotropy_profile(x)
    for alt in (
        torch.from_numpy(x),
        torch.from_numpy(x).float(),
        x.astype(np.int64),
        torch.from_numpy(x).half(),
    ):
        got = isotropy_profile(alt)
        for key in ("rankme", "average_cosine", "partition_isotropy", "isoscore"):
            assert got[key] == pytest.approx(ref[key], rel=1e-9), key
        np.testing.assert_allclose(got["spectrum"], ref["spectrum"], rtol=1e-9)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_matches_cpu() -> None:
    """CUDA float64 and float32 against the CPU (1e-9 relative for float64, RTOL 1e-4 for float32; the
    partition isotropy to REL, see below)."""
    for make in KINDS.values():
        for n, d in ((3000, 64), (40, 100)):
            x = make(n, d, 1) / 10.0
            labels = np.arange(n) % 4
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FewSamplesWarning)
                cpu = isotropy_profile(x, labels)
                for xt, tol in (
                    (torch.from_numpy(x).cuda(), TIGHT),
                    (torch.from_numpy(x).float().cuda(), RTOL),
                ):
                    gpu = isotropy_profile(xt, torch.from_numpy(labels).cuda())
                    for key in ("rankme", "isoscore", "class_alignment"):
                        assert gpu[key] == pytest.approx(cpu[key], rel=tol, abs=tol), key
                    # I(W) reads eigenvectors, and those of low_rank's clustered noise eigenvalues are only
                    # determined to ~eps * lambda_max / gap (~1e-7 here): two correct float64 solvers
                    # (LAPACK, cuSOLVER) differ by that much, so REL, as against the explicit reference above
                    assert gpu["partition_isotropy"] == pytest.approx(
                        cpu["partition_isotropy"], rel=max(tol, REL)
                    )
                    assert gpu["average_cosine"] == pytest.approx(cpu["average_cosine"], abs=tol)
                    big = cpu["spectrum"] > 1e-8 * cpu["spectrum"][0]
                    # a backward-stable solver's eigenvalues are right to ~eps * lambda_max (Weyl),
                    # not relatively
                    np.testing.assert_allclose(
                        gpu["spectrum"][big], cpu["spectrum"][big], rtol=tol, atol=1e-12 * cpu["spectrum"][0]
                    )
                    assert spectrum(xt)[0] == pytest.approx(cpu["spectrum"][0], rel=tol)
                    assert partition_isotropy(xt) == pytest.approx(
                        cpu["partition_isotropy"], rel=max(tol, REL)
                    )


@pytest.mark.parametrize(("n", "d"), [(500, 60), (20, 60)])
def test_rankme_of_exactly_rank_deficient_data(monkeypatch, n: int, d: int) -> None:
    """Rank 3 without noise: the 57 zero singular values must come out ~0 as in an SVD, not as the
    sqrt(eps) * sigma_max that square roots of Gram eigenvalues give (1e-9 relative; without the
    recomputation the error is ~1e-5 here)."""
    rng = np.random.default_rng(12)
    x = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + 4.0
    ref = ref_rankme(x)
    assert rankme(x) == pytest.approx(ref, rel=TIGHT)
    assert rankme(x.astype(np.float32)) == pytest.approx(ref_rankme(x.astype(np.float32)), rel=RTOL)
    iso_mod = __import__("engine.metrics.isotropy", fromlist=["REFINE"])
    monkeypatch.setattr(iso_mod, "REFINE", -1.0)  # square roots only: measurably off
    assert abs(rankme(x) / ref - 1) > 1e-7


def test_profile_without_partition() -> None:
    """partition=False leaves the partition isotropy out; the rest is unchanged (1e-9)."""
    x = _low_rank(500, 20, 3)
    full, lean = (
        isotropy_profile(x, np.arange(500) % 2),
        isotropy_profile(x, np.arange(500) % 2, partition=False),
    )
    assert "partition_isotropy" not in lean and set(full) - set(lean) == {"partition_isotropy"}
    for key in lean:
        np.testing.assert_allclose(lean[key], full[key], rtol=TIGHT)
