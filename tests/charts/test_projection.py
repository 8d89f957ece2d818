"""PCA view, Procrustes alignment and warm-started UMAP frames."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import silhouette_score

from engine.charts import projection_frames as projection


def blobs(n: int = 120, d: int = 16, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    centres = rng.normal(scale=6.0, size=(3, d))
    return (centres[labels] + rng.normal(size=(n, d))).astype(np.float32), labels


def test_pca_2d_shape_and_stable_signs() -> None:
    X, _ = blobs()
    Y = projection.pca_2d(X)
    assert Y.shape == (len(X), 2) and Y.dtype == np.float32
    assert np.allclose(Y.mean(axis=0), 0, atol=1e-3)
    assert np.var(Y[:, 0]) >= np.var(Y[:, 1])
    assert np.allclose(projection.pca_2d(X * 1.0001), Y, atol=1e-2 * np.abs(Y).max())  # no sign flips
    assert projection.pca_2d(np.zeros((0, 4))).shape == (0, 2)
    assert projection.pca_2d(np.ones((1, 4))).shape == (1, 2)
    assert projection.pca_2d(np.ones((3, 1))).shape == (3, 2)


def test_procrustes_recovers_rotation_reflection_scale_shift() -> None:
    rng = np.random.default_rng(1)
    P = rng.normal(size=(50, 2))
    angle = 1.1
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]) @ np.diag([1, -1])
    Y = 3.0 * P @ R + np.array([5.0, -2.0])
    assert np.allclose(projection.procrustes_align(Y, P), P, atol=1e-4)
    assert np.allclose(projection.procrustes_align(np.zeros((4, 2)), np.ones((4, 2))), 1.0)


def test_a_film_of_aligned_noisy_frames_keeps_its_size() -> None:
    """Each frame is aligned to the one before; the spread must not drift (least squares shrank it)."""
    rng = np.random.default_rng(4)
    frame = rng.normal(size=(300, 2))
    size = np.sqrt(((frame - frame.mean(axis=0)) ** 2).sum(axis=1).mean())
    for _ in range(100):
        turned = (frame + 0.3 * rng.normal(size=frame.shape)) @ np.array([[0.0, 1.0], [-1.0, 0.0]]) * 7.0
        frame = projection.procrustes_align(turned, frame)
    assert np.sqrt(((frame - frame.mean(axis=0)) ** 2).sum(axis=1).mean()) == pytest.approx(size, rel=1e-5)


def test_umap_frame_separates_clusters_and_warm_start_moves_little() -> None:
    X, labels = blobs(150)
    first = projection.umap_frame(X, seed=0, n_epochs=60)
    assert first.shape == (150, 2) and np.isfinite(first).all()
    # the classes stay apart in the picture (UMAP may split a blob into fragments, so no centroid test):
    # scikit-learn's silhouette of the frame (about 0 for the labels of noise) and each point's neighbours
    assert silhouette_score(first, labels) > 0.5
    nearest = np.argsort(((first[:, None] - first[None]) ** 2).sum(-1), axis=1)[:, 1:6]
    assert (labels[nearest] == labels[:, None]).mean() > 0.95
    moved = X + 0.01 * np.random.default_rng(2).normal(size=X.shape).astype(np.float32)
    second = projection.umap_frame(moved, previous=first, seed=0)
    scale = np.abs(first - first.mean(axis=0)).mean()
    assert np.abs(second - first).mean() < 0.5 * scale  # warm start + Procrustes keep the picture in place


def test_umap_frame_accepts_precomputed_knn_and_tiny_inputs() -> None:
    from engine.metrics import knn

    X, _ = blobs(60)
    neighbours = knn(X, 15)
    assert projection.umap_frame(X, knn=neighbours, n_epochs=20).shape == (60, 2)
    assert projection.umap_frame(X[:3]).shape == (3, 2)  # PCA fallback
    wrong = np.zeros((5, 2))
    assert projection.umap_frame(X, previous=wrong, knn=neighbours, n_epochs=10).shape == (
        60,
        2,
    )  # bad init ignored


@pytest.mark.timeout(120)
def test_prewarm_is_idempotent() -> None:
    projection.prewarm_umap()
    assert projection._prewarmed.is_set()
    projection.prewarm_in_background().join(60)


@pytest.mark.parametrize(
    ("n", "d", "seed"), [(300, 384, 0), (120, 16, 1), (40, 2, 2), (25, 60, 3), (9, 3, 4)]
)
def test_pca_2d_gives_scikit_learns_first_two_components_up_to_sign(n: int, d: int, seed: int) -> None:
    """Against an independent PCA (scikit-learn's, by SVD of the centred data), each axis up to its sign,
    to 1e-4 of the spread: inputs with fewer and more points than dimensions."""
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * np.linspace(3.0, 0.5, d)).astype(np.float32)  # distinct variances
    ours = projection.pca_2d(X).astype(np.float64)
    theirs = PCA(n_components=2, svd_solver="full").fit_transform(X.astype(np.float64))
    for axis in range(2):
        sign = np.sign(ours[:, axis] @ theirs[:, axis])
        assert np.allclose(ours[:, axis], sign * theirs[:, axis], atol=1e-4 * np.abs(theirs).max())
