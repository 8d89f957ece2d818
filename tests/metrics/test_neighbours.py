"""engine.metrics.neighbours.knn against sklearn.neighbors.NearestNeighbors (exact, Euclidean).

Tolerance: distances within 1e-5 (relative, float32 output) of the exact float64 ||x_i - x_j||
(scikit-learn's own distances carry Gram-trick cancellation: ~1e-4 for the self-distance here); indices
equal to scikit-learn's (continuous random data has no ties).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.neighbors import NearestNeighbors

from engine.core.errors import ConfigError
from engine.metrics import knn

ATOL = 1e-5


@pytest.mark.parametrize(("n", "d", "k"), [(5, 2, 1), (40, 3, 5), (700, 50, 15), (300, 384, 30), (9, 4, 9)])
def test_matches_sklearn(n: int, d: int, k: int) -> None:
    x = np.random.default_rng(n).normal(size=(n, d)).astype(np.float32) * 10 + 100  # offset: cancellation
    idx, dist = knn(x, k)
    ref_dist, ref_idx = (
        NearestNeighbors(n_neighbors=k).fit(x.astype(np.float64)).kneighbors(x.astype(np.float64))
    )
    assert idx.dtype == np.int64 and dist.dtype == np.float32 and idx.shape == dist.shape == (n, k)
    np.testing.assert_array_equal(idx, ref_idx)
    x64 = x.astype(np.float64)
    exact = np.linalg.norm(x64[idx] - x64[:, None, :], axis=2)
    np.testing.assert_allclose(dist, exact, atol=1e-6, rtol=ATOL)
    np.testing.assert_allclose(dist[:, 1:], ref_dist[:, 1:], rtol=1e-4)
    assert (idx[:, 0] == np.arange(n)).all() and (dist[:, 0] == 0).all()


def test_duplicates_keep_self_first_and_torch_input() -> None:
    base = np.random.default_rng(1).normal(size=(10, 3))
    x = np.concatenate([base, base, base])  # each point has two exact copies
    idx, dist = knn(torch.from_numpy(x), 4)
    assert (idx[:, 0] == np.arange(30)).all()
    np.testing.assert_array_equal(dist[:, :3], 0.0)
    for i in range(30):
        assert set(idx[i, :3]) == {i % 10, i % 10 + 10, i % 10 + 20}


@pytest.mark.parametrize("k", [0, 6, -1, 2.5])
def test_bad_k(k) -> None:
    with pytest.raises(ConfigError, match="knn k"):
        knn(np.zeros((5, 2)), k)
