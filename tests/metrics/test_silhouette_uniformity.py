"""engine.metrics.silhouette_and_uniformity: the uniformity summed in the silhouette's own distance blocks.

The uniformity is checked against Wang & Isola's formula written plainly with scipy's pdist on the
L2-normalised rows, log mean_{i<j} exp(-t ||u_i - u_j||^2), and the silhouette of the same call against
scikit-learn's silhouette_score (as tests/metrics/test_silhouette.py does), over one block and tiny blocks
(seams, off-diagonal symmetric blocks), the row-streamed path and every accumulation path.

Tolerances: uniformity TIGHT = 1e-9 for float64 inputs, ATOL = 1e-4 for float32 inputs (the issue's figure;
observed ~1e-6); silhouette 1e-9 (float64) and 1e-6 (float32) as in test_silhouette.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from labelled import LABELLED, accumulation_paths, clustered, labelled_set, random_labels
from scipy.spatial.distance import pdist
from scipy.special import logsumexp
from sklearn.metrics import silhouette_score as sk_score

from engine.core.errors import ConfigError
from engine.metrics import silhouette, silhouette_and_uniformity, uniformity

TIGHT = 1e-9
ATOL = 1e-4
SIL32 = 1e-6


def ref_uniformity(x: np.ndarray, t: float = 2.0) -> float:
    """log of the mean over pairs i < j of exp(-t ||u_i - u_j||^2), u the normalised rows (zero rows stay
    0)."""
    x = x.astype(np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    u = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    sq = pdist(u, "sqeuclidean")
    return float(logsumexp(-t * sq) - np.log(len(sq)))


def _data(n: int, d: int, k: int, kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    if kind != "norms":  # common_mean: anisotropic, all points near one direction, uniformity near 0
        return clustered(n, d, k, seed, offset=10.0 if kind == "common_mean" else 0.0)
    rng, y = random_labels(n, k, seed)  # "norms": very different row norms and a low-rank part
    low = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d)) * 3.0
    return (low + rng.normal(size=(n, d))) * rng.uniform(0.01, 100.0, (n, 1)), y


@pytest.mark.parametrize(
    ("n", "d", "k"), [(10, 2, 2), (120, 200, 4), (300, 16, 50), (257, 1, 7), (400, 32, 2)]
)
@pytest.mark.parametrize("kind", ["random", "common_mean", "norms"])
def test_uniformity_equals_pdist_and_silhouette_equals_sklearn(
    blocks, n: int, d: int, k: int, kind: str
) -> None:
    """float64: both to 1e-9; float32: uniformity ATOL = 1e-4, silhouette 1e-6 (test_silhouette's)."""
    x, y = _data(n, d, k, kind, n + d)
    sil, uni = silhouette_and_uniformity(x, y)
    assert uni == pytest.approx(ref_uniformity(x), abs=TIGHT)
    assert sil == pytest.approx(sk_score(x, y), abs=TIGHT)
    assert sil == pytest.approx(silhouette(x, y), abs=1e-12)  # the same computation (worker order aside)
    x32 = x.astype(np.float32)
    sil32, uni32 = silhouette_and_uniformity(x32, y)
    assert uni32 == pytest.approx(ref_uniformity(x32), abs=ATOL)
    assert sil32 == pytest.approx(sk_score(x, y), abs=SIL32 if kind != "norms" else 1e-5)


def test_equals_the_standalone_uniformity_for_other_t() -> None:
    """t in (0, 20]: equal to uniformity(x, t) and the pdist formula (1e-9 float64)."""
    x, y = _data(500, 12, 3, "random", 1)
    for t in (0.5, 1.0, 2.0, 7.5, 20.0):
        _, uni = silhouette_and_uniformity(x, y, t=t)
        assert uni == pytest.approx(ref_uniformity(x, t), abs=TIGHT)
        assert uni == pytest.approx(uniformity(x, t=t), abs=TIGHT)


@pytest.mark.parametrize("slices", [True, False])
def test_accumulation_and_streamed_paths_agree(monkeypatch, slices: bool) -> None:
    """Slice sums / one-hot GEMM (the CUDA path) / index_add; symmetric table vs row-streamed; with two
    zero rows (1e-9)."""
    x, y = _data(333, 6, 40, "random", 10)
    x[[0, 200]] = 0.0
    ref_sil, ref_uni = sk_score(x, y), ref_uniformity(x)
    for _ in accumulation_paths(monkeypatch, slices):
        sil, uni = silhouette_and_uniformity(x, y)
        assert sil == pytest.approx(ref_sil, abs=TIGHT)
        assert uni == pytest.approx(ref_uni, abs=TIGHT)


def test_zero_rows_duplicates_and_extremes(blocks) -> None:
    """Zero rows stay zero vectors (as F.normalize and uniformity()); duplicates; collapsed points give 0;
    two antipodal directions give log mean of exp(-8) and 1 (1e-9)."""
    x, y = _data(200, 5, 3, "random", 2)
    x[[3, 50, 51, 199]] = 0.0
    sil, uni = silhouette_and_uniformity(x, y)
    assert uni == pytest.approx(ref_uniformity(x), abs=TIGHT)
    assert uni == pytest.approx(uniformity(x), abs=TIGHT)
    assert sil == pytest.approx(sk_score(x, y), abs=TIGHT)
    zeros = np.zeros((12, 3))  # all zero vectors: every pair at distance 0
    assert silhouette_and_uniformity(zeros, np.arange(12) % 3) == (0.0, 0.0)
    same = np.repeat(np.array([[1.0, 2.0], [2.0, 4.0]]), 30, axis=0)  # one direction, two clusters
    assert silhouette_and_uniformity(same, np.repeat([0, 1], 30))[1] == pytest.approx(0.0, abs=1e-12)
    opposite = np.repeat(np.array([[1.0, 0.0], [-3.0, 0.0]]), 5, axis=0)  # 25 pairs at 4, 20 at 0
    expected = np.log((25 * np.exp(-8.0) + 20) / 45)
    assert silhouette_and_uniformity(opposite, np.repeat([0, 1], 5))[1] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("size", [10, 50, 89])
def test_sample_size_scores_both_on_the_same_subset(size: int) -> None:
    """With sample_size, silhouette = sklearn's on its subset and uniformity = pdist on that subset (1e-9)."""
    x, y = _data(90, 4, 3, "random", 9)
    for seed in (0, 3):
        idx = np.random.RandomState(seed).permutation(90)[:size]
        sil, uni = silhouette_and_uniformity(x, y, sample_size=size, seed=seed)
        assert sil == pytest.approx(sk_score(x, y, sample_size=size, random_state=seed), abs=TIGHT)
        assert uni == pytest.approx(ref_uniformity(x[idx]), abs=TIGHT)


def test_bad_inputs_are_one_line_config_errors() -> None:
    x, y = _data(20, 3, 2, "random")
    for bad_t in (0, -1.0, 20.5, float("nan"), True, "2"):
        with pytest.raises(ConfigError, match="uniformity t"):
            silhouette_and_uniformity(x, y, t=bad_t)
    for xx, labels, words in [
        (np.zeros((5, 2)), [0] * 5, "1 label"),
        (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), [0, 1, 1], "NaN"),
    ]:
        with pytest.raises(ConfigError) as info:
            silhouette_and_uniformity(xx, labels)
        assert words in str(info.value) and "\n" not in str(info.value)


@settings(max_examples=40, deadline=None)
@given(**LABELLED)
def test_property_matches_references(n: int, d: int, k: int, seed: int, scale: float) -> None:
    """1e-9 (float64) for both, on random data with mixed offsets and scales."""
    rng, x, y = labelled_set(n, d, k, seed, scale)
    sil, uni = silhouette_and_uniformity(x, y)
    assert -4.0 * 2 - 1e-9 <= uni <= 1e-12
    assert uni == pytest.approx(ref_uniformity(x), abs=TIGHT)
    assert sil == pytest.approx(sk_score(x, y), abs=1e-8)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_matches_references() -> None:
    """CUDA float64 to 1e-9; float32 uniformity ATOL = 1e-4, silhouette 1e-6."""
    x, y = _data(3000, 64, 5, "random", 11)
    xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    sil, uni = silhouette_and_uniformity(xt, yt)
    assert sil == pytest.approx(sk_score(x, y), abs=TIGHT)
    assert uni == pytest.approx(ref_uniformity(x), abs=TIGHT)
    sil32, uni32 = silhouette_and_uniformity(xt.float(), yt)
    assert sil32 == pytest.approx(sk_score(x, y), abs=SIL32)
    assert uni32 == pytest.approx(ref_uniformity(x.astype(np.float32)), abs=ATOL)
