"""What the silhouette's tests share (tests/metrics/test_silhouette.py, test_silhouette_uniformity.py):
random labelled sets (and the hypothesis strategies of the property tests), and its accumulation paths."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import strategies as st

sil_mod = importlib.import_module("engine.metrics.silhouette")  # the package re-exports a same-named function

#: ``@given(**LABELLED)``: n items in d dimensions, k classes at most, a seed and a scale
LABELLED = dict(
    n=st.integers(3, 60),
    d=st.integers(1, 12),
    k=st.integers(2, 8),
    seed=st.integers(0, 2**31),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
)


def labelled_set(
    n: int, d: int, k: int, seed: int, scale: float
) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """The generator (for more draws), the points (mixed offsets and scales) and their labels (at least two
    classes, fewer than n)."""
    rng = np.random.default_rng(seed)
    k = min(k, n - 1)
    y = rng.integers(0, k, n)
    y[:2] = [0, 1]
    x = rng.normal(size=(n, d)) * scale + rng.integers(-2, 3, size=(n, d))
    return rng, x, y


def random_labels(n: int, k: int, seed: int = 0) -> tuple[np.random.Generator, np.ndarray]:
    """The generator (for the points) and n labels of k classes, every class present."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return rng, y


def clustered(n: int, d: int, k: int, seed: int = 0, offset: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """n points in d dimensions around k random centres (every class present), moved by ``offset``, and
    their labels."""
    rng, y = random_labels(n, k, seed)
    return rng.normal(size=(n, d)) + rng.normal(size=(k, d))[y] * 0.7 + offset, y


def accumulation_paths(monkeypatch: pytest.MonkeyPatch, slices: bool) -> Iterator[None]:
    """Each accumulation path of the silhouette in turn, in blocks of 50 rows (``slices``: slice sums on the
    host): one-hot GEMM (the CUDA path) or index_add, each with the symmetric table and row-streamed."""
    monkeypatch.setattr(sil_mod, "block_size", lambda x: 50)
    monkeypatch.setattr(sil_mod, "host_slices", lambda device: slices)
    for many in (0, 1000):
        monkeypatch.setattr(sil_mod, "MAX_SLICES", many)
        monkeypatch.setattr(sil_mod, "ONE_HOT_MAX_CLUSTERS", many)
        for table_bytes in (0, 2**40):
            monkeypatch.setattr(sil_mod, "SYMMETRIC_TABLE_BYTES", table_bytes)
            yield
