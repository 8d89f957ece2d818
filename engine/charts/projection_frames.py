"""2-D views of embedding snapshots: an instant PCA and warm-started UMAP frames.

UMAP (McInnes, Healy & Melville 2018, arXiv 1802.03426) builds a fuzzy k-NN graph and optimises a 2-D
layout by SGD. For a film of a training run we

- pass the engine's exact k-NN (:func:`engine.metrics.knn`, self as first neighbour) as
  ``precomputed_knn`` with ``force_approximation_algorithm=True`` (else umap-learn recomputes all
  distances for n < 4096);
- start every later frame from the previous layout (``init=previous``) with few epochs, so clusters move
  instead of jumping, and rotate/reflect/scale it onto the previous frame by orthogonal Procrustes
  (Schönemann 1966: ``R = U Vᵀ`` from the SVD of ``Yᵀ P``), because UMAP fixes no orientation.

Nothing here imports streamlit; umap-learn is imported lazily (it takes seconds).
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from typing import Any

import numpy as np
import scipy.linalg

from engine.core import settings

FIRST_EPOCHS = settings.default("umap_first_epochs")
REFIT_EPOCHS = settings.default("umap_refit_epochs")
N_NEIGHBORS = settings.default("umap_neighbors")

_prewarmed = threading.Event()


def _as_array(X: Any) -> np.ndarray:
    if hasattr(X, "detach"):  # a torch tensor, without importing torch here
        X = X.detach().float().cpu().numpy()
    return np.ascontiguousarray(np.asarray(X, dtype=np.float32))


def pca_2d(X: Any) -> np.ndarray:
    """First two principal components of ``X`` (n, d) → (n, 2) float32; signs fixed for stable pictures.

    Eigenvectors of the d × d covariance (Pearson 1901); each axis is flipped so that its largest loading
    is positive, so successive snapshots keep their orientation.
    """
    X = _as_array(X).astype(np.float64)
    n = X.shape[0]
    if n == 0:
        return np.zeros((0, 2), dtype=np.float32)
    centred = X - X.mean(axis=0)
    if n < 2 or X.shape[1] < 1:
        return np.zeros((n, 2), dtype=np.float32)
    cov = centred.T @ centred / max(n - 1, 1)
    d = cov.shape[0]
    # only the two largest eigenpairs (LAPACK's syevr with an index range): a third of a full eigh's time
    # at d = 384 (4.6 ms against 14.8 ms, 2026-12-08), redone for each new snapshot until UMAP's first frame
    values, vectors = scipy.linalg.eigh(cov, subset_by_index=[max(d - 2, 0), d - 1])
    top = vectors[:, np.argsort(values)[::-1][:2]]
    if top.shape[1] < 2:
        top = np.pad(top, ((0, 0), (0, 2 - top.shape[1])))
    signs = np.sign(top[np.abs(top).argmax(axis=0), [0, 1]])
    signs[signs == 0] = 1.0
    return (centred @ (top * signs)).astype(np.float32)


def procrustes_align(Y: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Rotate/reflect, scale and shift ``Y`` onto ``reference`` (orthogonal Procrustes for the rotation).

    The scale makes ``Y``'s spread (root-mean-square distance to its centroid) equal ``reference``'s. The
    least-squares scale, sum(singular values) / ||Y_c||^2, shrinks a layout unless it matches exactly
    (Cauchy-Schwarz), and a film aligns each frame to the one before: 86 frames had shrunk the final layout
    to a dot. For an exact similarity transform the two scales agree.
    """
    Y = np.asarray(Y, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    y_mean, r_mean = Y.mean(axis=0), reference.mean(axis=0)
    Yc, Rc = Y - y_mean, reference - r_mean
    norm = float((Yc**2).sum())
    if norm == 0.0:
        return np.broadcast_to(r_mean, Y.shape).astype(np.float32)
    U, _, Vt = np.linalg.svd(Yc.T @ Rc)
    rotation = U @ Vt
    scale = float(np.sqrt((Rc**2).sum() / norm))
    return (scale * Yc @ rotation + r_mean).astype(np.float32)


def umap_frame(
    X: Any,
    previous: np.ndarray | None = None,
    knn: tuple[np.ndarray, np.ndarray] | None = None,
    seed: int = 0,
    n_neighbors: int = N_NEIGHBORS,
    n_epochs: int | None = None,
) -> np.ndarray:
    """One UMAP layout (n, 2) of ``X``; warm-started from ``previous`` (n, 2) when given.

    ``knn``: ``(indices, distances)`` with self as first neighbour (computed with
    :func:`engine.metrics.knn` when absent). Tiny inputs (n < 5) fall back to :func:`pca_2d`.
    """
    X = _as_array(X)
    n = X.shape[0]
    if n < 5:
        return pca_2d(X)
    k = max(2, min(n_neighbors, n - 1))
    if knn is None:
        from engine.metrics import knn as exact_knn

        knn = exact_knn(X, k)
    indices = np.ascontiguousarray(np.asarray(knn[0])[:, :k], dtype=np.int64)
    distances = np.ascontiguousarray(np.asarray(knn[1])[:, :k], dtype=np.float32)
    warm = previous is not None and np.shape(previous) == (n, 2) and np.isfinite(previous).all()
    init: Any = np.asarray(previous, dtype=np.float64) if warm else "spectral"
    epochs = n_epochs or (REFIT_EPOCHS if warm else FIRST_EPOCHS)

    import umap  # lazy: slow import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reducer = umap.UMAP(
            n_neighbors=k,
            n_components=2,
            random_state=seed,
            n_epochs=epochs,
            init=init,
            precomputed_knn=(indices, distances, None),
            force_approximation_algorithm=True,
            n_jobs=1,
            verbose=False,
        )
        Y = reducer.fit_transform(X)
    Y = np.asarray(Y, dtype=np.float32)
    if warm:
        Y = procrustes_align(Y, np.asarray(previous))
    return Y


def prewarm_umap() -> None:
    """Compile umap-learn's numba kernels on a tiny input, so the first real frame is fast (idempotent)."""
    if _prewarmed.is_set():
        return
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 8)).astype(np.float32)
    X[:32] += 2.0
    first = umap_frame(X, knn=_numpy_knn(X, 10), n_neighbors=10, n_epochs=5)
    umap_frame(X, previous=first, knn=_numpy_knn(X, 10), n_neighbors=10, n_epochs=5)
    _prewarmed.set()


def prewarm_in_background() -> threading.Thread:
    """Start :func:`prewarm_umap` in a daemon thread (errors are ignored: the first frame just gets
    slower)."""

    def target() -> None:
        with contextlib.suppress(Exception):  # a failed warm-up only costs time later
            prewarm_umap()

    thread = threading.Thread(target=target, name="umap-prewarm", daemon=True)
    thread.start()
    return thread


def _numpy_knn(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact Euclidean k-NN for the warm-up input only (tiny), self first."""
    sq = (X**2).sum(axis=1)
    d2 = np.maximum(sq[:, None] - 2 * X @ X.T + sq[None, :], 0.0)
    np.fill_diagonal(d2, -1.0)
    idx = np.argsort(d2, axis=1)[:, :k]
    dist = np.sqrt(np.maximum(np.take_along_axis(d2, idx, axis=1), 0.0)).astype(np.float32)
    return idx.astype(np.int64), dist
