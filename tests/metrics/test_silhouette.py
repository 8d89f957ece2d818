"""engine.metrics.silhouette against scikit-learn's silhouette_score / silhouette_samples.

Tolerance: ATOL = 1e-9 for float64 inputs (same arithmetic up to summation order), 1e-6 for float32
inputs against scikit-learn on the float64 data (both well inside the project's 1e-5 requirement).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from labelled import LABELLED, accumulation_paths, clustered, labelled_set
from sklearn.metrics import silhouette_samples as sk_samples
from sklearn.metrics import silhouette_score as sk_score

from engine.core.errors import ConfigError
from engine.metrics import silhouette, silhouette_samples

ATOL = 1e-9
ATOL32 = 1e-6


_data = clustered


@pytest.mark.parametrize(
    ("n", "d", "k"),
    [(10, 2, 2), (60, 5, 3), (120, 200, 4), (300, 16, 50), (257, 1, 7), (400, 32, 2)],
)
def test_matches_sklearn_random(blocks, n: int, d: int, k: int) -> None:
    x, y = _data(n, d, k)
    assert silhouette(x, y) == pytest.approx(sk_score(x, y), abs=ATOL)
    np.testing.assert_allclose(silhouette_samples(x, y), sk_samples(x, y), atol=ATOL, rtol=0)


def test_float32_and_torch_inputs(blocks) -> None:
    x, y = _data(500, 48, 3, seed=1)
    ref = sk_score(x, y)
    assert silhouette(x.astype(np.float32), y) == pytest.approx(ref, abs=ATOL32)
    assert silhouette(torch.from_numpy(x), torch.from_numpy(y)) == pytest.approx(ref, abs=ATOL)
    assert silhouette(torch.from_numpy(x).float(), y.tolist()) == pytest.approx(ref, abs=ATOL32)


def test_rank_deficient_and_n_below_d(blocks) -> None:
    rng = np.random.default_rng(2)
    low = rng.normal(size=(150, 3)) @ rng.normal(size=(3, 64))  # rank 3 in 64 dims
    y = rng.integers(0, 3, 150)
    assert silhouette(low, y) == pytest.approx(sk_score(low, y), abs=ATOL)
    wide, y2 = _data(40, 500, 4, seed=3)  # n < d
    assert silhouette(wide, y2) == pytest.approx(sk_score(wide, y2), abs=ATOL)


def test_singletons_unbalanced_and_many_classes(blocks) -> None:
    x, _ = _data(200, 8, 2, seed=4)
    y = np.zeros(200, dtype=int)
    y[:5] = [1, 2, 3, 4, 5]  # five singleton classes next to one huge class
    np.testing.assert_allclose(silhouette_samples(x, y), sk_samples(x, y), atol=ATOL, rtol=0)
    assert silhouette_samples(x, y)[1:5].tolist() == [0.0] * 4
    x50, y50 = _data(600, 10, 50, seed=5)
    assert silhouette(x50, y50) == pytest.approx(sk_score(x50, y50), abs=ATOL)
    many = np.arange(199) % 150  # 150 classes, most of them singletons (n - 1 is the maximum allowed)
    assert silhouette(x[:199], many) == pytest.approx(sk_score(x[:199], many), abs=ATOL)


def test_duplicate_points(blocks) -> None:
    rng = np.random.default_rng(6)
    base = rng.normal(size=(30, 6))
    x = base[rng.integers(0, 30, 240)]  # every point has duplicates
    y = rng.integers(0, 3, 240)
    np.testing.assert_allclose(silhouette_samples(x, y), sk_samples(x, y), atol=1e-7, rtol=0)
    same = np.repeat(rng.normal(size=(2, 4)), 50, axis=0)  # two clusters, each one repeated point
    lab = np.repeat([0, 1], 50)
    assert silhouette(same, lab) == pytest.approx(sk_score(same, lab), abs=1e-7)
    assert (
        silhouette(np.zeros((10, 3)), np.arange(10) % 2)
        == sk_score(np.zeros((10, 3)), np.arange(10) % 2)
        == 0
    )


def test_label_kinds_strings_tuples_and_multilabel_rows() -> None:
    x, y = _data(90, 4, 3, seed=7)
    ref = sk_score(x, y)
    names = np.array(["neg", "neu", "pos"])[y]
    assert silhouette(x, names) == pytest.approx(ref, abs=ATOL)
    assert silhouette(x, names.tolist()) == pytest.approx(ref, abs=ATOL)
    tags = [(int(v), "x") if v else () for v in y]  # tuples (multi-label sets) as labels
    assert silhouette(x, tags) == pytest.approx(ref, abs=ATOL)
    rng = np.random.default_rng(8)
    onehot = rng.integers(0, 2, (90, 3))  # multi-label indicator rows: distinct rows = distinct clusters
    as_text = ["".join(map(str, row)) for row in onehot]
    assert silhouette(x, onehot) == pytest.approx(sk_score(x, as_text), abs=ATOL)
    assert silhouette(x, torch.from_numpy(onehot)) == pytest.approx(sk_score(x, as_text), abs=ATOL)


@pytest.mark.parametrize("size", [1, 2, 50, 89, 90, 500])
def test_sample_size_matches_sklearn_subset(size: int) -> None:
    x, y = _data(90, 4, 3, seed=9)
    if size < 3:
        with pytest.raises(ConfigError):
            silhouette(x, y, sample_size=size, seed=3)
        return
    for seed in (0, 3):
        ref = sk_score(x, y, sample_size=size, random_state=seed)
        assert silhouette(x, y, sample_size=size, seed=seed) == pytest.approx(ref, abs=ATOL)


@pytest.mark.parametrize("slices", [True, False])
def test_accumulation_paths_agree(monkeypatch, slices: bool) -> None:
    """Slice sums / one-hot GEMM (the CUDA path) / index_add; symmetric table vs row-streamed."""
    x, y = _data(333, 6, 40, seed=10)
    ref = sk_score(x, y)
    for _ in accumulation_paths(monkeypatch, slices):
        assert silhouette(x, y) == pytest.approx(ref, abs=ATOL)
        np.testing.assert_allclose(silhouette_samples(x, y), sk_samples(x, y), atol=ATOL, rtol=0)


@pytest.mark.parametrize(
    ("x", "labels", "words"),
    [
        (np.zeros((5, 2)), [0] * 5, "1 label"),
        (np.zeros((5, 2)), [0, 1, 2, 3, 4], "5 label"),
        (np.zeros((5, 2)), [0, 1], "one entry per row"),
        (np.zeros(5), [0, 1, 0, 1, 0], "2-D"),
        (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), [0, 1, 1], "NaN"),
        (np.zeros((4, 2)), [[0], [1], {2}, [1]], "not hashable"),
        (np.zeros((4, 2)), ["a", "b", "a", float("nan")], "NaN"),
    ],
)
def test_bad_input_is_one_line_config_error(x, labels, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        silhouette(x, labels)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_overflowing_values_are_a_config_error() -> None:
    x = np.full((6, 2), 1e200) * np.arange(6)[:, None]
    with pytest.raises(ConfigError, match="too large"):
        silhouette(x, [0, 1] * 3)


def test_bad_sample_size() -> None:
    x, y = _data(20, 2, 2)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ConfigError, match="sample_size"):
            silhouette(x, y, sample_size=bad)


@settings(max_examples=40, deadline=None)
@given(**LABELLED)
def test_property_matches_sklearn_and_invariances(n: int, d: int, k: int, seed: int, scale: float) -> None:
    rng, x, y = labelled_set(n, d, k, seed, scale)
    value = silhouette(x, y)
    assert -1.0 <= value <= 1.0
    assert value == pytest.approx(sk_score(x, y), abs=1e-8)
    perm = rng.permutation(n)  # invariant to order, relabelling, translation and scaling
    assert silhouette(3.0 * x[perm] + 5.0, (y[perm] + 7) * 2) == pytest.approx(value, abs=1e-8)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")
def test_cuda_matches_cpu() -> None:
    x, y = _data(3000, 64, 5, seed=11)
    xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    assert silhouette(xt, yt) == pytest.approx(sk_score(x, y), abs=ATOL)
    assert silhouette(xt.float(), yt) == pytest.approx(sk_score(x, y), abs=ATOL32)
