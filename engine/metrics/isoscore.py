"""IsoScore and IsoScore* (Rudman et al. 2022, "IsoScore: Measuring the Uniformity of Embedding Space
Utilization", ACL Findings; PyPI ``IsoScore`` 2.0.1, functions ``IsoScore`` and ``IsoScore_star``).

For points X (n samples x d dims):
    C = cov(X)  (rows are samples, unbiased, /(n-1));  IsoScore*: C <- (1 - zeta) C + zeta C0
    sigma = singular values of C  (C is symmetric PSD: |eigenvalues|, computed with ``eigvalsh``)
    sigma_hat = sigma * sqrt(d) / ||sigma||
    delta = ||sigma_hat - 1|| / sqrt(2 (d - sqrt d))                      (isotropy defect)
    IsoScore = ((d - delta^2 (d - sqrt d))^2 - d) / (d (d - 1))           in [0, 1]
For a covariance (symmetric PSD) sigma = eigenvalues, so sum(sigma) = tr C and ||sigma|| = ||C||_F, and
the steps above collapse to an affine map of the participation ratio PR = (tr C)^2 / ||C||_F^2 in [1, d]:
    IsoScore = (PR - 1) / (d - 1)
(expand ||sigma_hat - 1||^2 = 2d - 2 sqrt(d) sum(sigma) / ||sigma||). ``isoscore`` computes it this way:
no d x d eigendecomposition (15 ms of the 19 ms per call at d = 384, measured), same value to rounding.
k equal-variance dimensions (and d - k empty ones) score exactly (k - 1)/(d - 1). With n <= d samples
the covariance has rank <= n - 1, so the score is capped at (n - 2)/(d - 1): use IsoScore* (shrinkage)
or more samples. The covariance is summed in float64 on the input's device from products in the input
dtype (2.0.1 works in the input dtype on the CPU, and its sqrt(d) constants are float32; differences are
~1e-7).
Constant points (all variances 0) give NaN, as in 2.0.1.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator

import torch

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, Checks, as_matrix, check_finite_or_defer
from engine.metrics._parallel import column_mean, row_chunks, run_tasks

#: Column strips of the covariance product (only the upper block triangle is multiplied).
COV_STRIPS = 4


class FewSamplesWarning(UserWarning):
    """IsoScore of n <= d points is capped at (n - 2)/(d - 1) by the rank of the covariance."""


def isoscore(X: ArrayLike) -> float:
    """IsoScore of the rows of ``X`` (n_samples, d); see the module docstring for the formula."""
    x = _checked(X, "IsoScore")
    return _score_from_cov(_covariance(x), symmetric=True, psd=True)


def isoscore_star(X: ArrayLike, zeta: float, C0: ArrayLike | None = None) -> float:
    """IsoScore* with covariance shrinkage ``(1 - zeta) cov(X) + zeta C0`` (C0 defaults to identity)."""
    zeta = float(zeta)
    if not 0.0 <= zeta <= 1.0:
        raise ConfigError(f"IsoScore* zeta must be in [0, 1]; got {zeta}")
    x = _checked(X, "IsoScore*")
    d = x.shape[1]
    cov = _covariance(x)
    if C0 is None:
        c0 = torch.eye(d, dtype=torch.float64, device=cov.device)
    else:
        c0 = as_matrix(C0, "C0").to(device=cov.device, dtype=torch.float64)
        if tuple(c0.shape) != (d, d):
            raise ConfigError(f"IsoScore* C0 must be a ({d}, {d}) matrix; got shape {tuple(c0.shape)}")
    shrunk = (1.0 - zeta) * cov + zeta * c0
    return _score_from_cov(shrunk, symmetric=bool(torch.equal(c0, c0.T)), psd=C0 is None)


def isoscore_cap(n: int, d: int) -> float:
    """The largest IsoScore that n samples in d dimensions can reach: min(1, (n - 2)/(d - 1))."""
    return min(1.0, max(0.0, (n - 2) / (d - 1)))


def _checked(X: ArrayLike, what: str) -> torch.Tensor:
    x = as_matrix(X, check_finite=False)
    n, d = x.shape
    if n < 2 or d < 2:
        raise ConfigError(f"{what} needs at least 2 samples and 2 dimensions; got X of shape ({n}, {d})")
    if n <= d:
        warnings.warn(
            f"{what} of {n} samples in {d} dimensions is capped at (n-2)/(d-1) = {isoscore_cap(n, d):.4f}; "
            "use more samples than dimensions (or IsoScore* shrinkage)",
            FewSamplesWarning,
            stacklevel=3,
        )
    return x


def _covariance(x: torch.Tensor) -> torch.Tensor:
    """Unbiased covariance of the rows (like ``torch.cov(x.T)``) as float64: the sum over row chunks of
    (x_c - mean)^T (x_c - mean) / (n - 1), chunks shared out to the CPU workers. Centring is done in
    float64 (no cancellation for far-off means); each chunk's product runs in the input dtype (float32 like
    2.0.1, 2x faster than float64; float64 inputs stay float64) and is summed in float64. The matrix is
    symmetric: its columns are cut into ``COV_STRIPS`` strips and strip s is multiplied only with the
    columns from s on (the upper block triangle: 10/16 of the work for 4 strips; measured 1.15-1.25x faster
    than 2 x 2 blocks at d = 384); the lower triangle is mirrored."""
    return mean_and_covariance(x)[1]


def mean_and_covariance(
    x: torch.Tensor, products: torch.dtype | None = None, checks: Checks | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(column mean, unbiased covariance), both float64, as ``_covariance`` computes them; ``products``
    sets the dtype of the chunk products (default: the input dtype; float64 makes every product exact to
    float64 rounding, which small eigenvalues of a strongly anisotropic covariance need). ``checks``:
    the finiteness check is deferred into that list (no host sync; ``_inputs.check_finite_or_defer``)."""
    n, d = x.shape
    products = products or x.dtype
    mean = column_mean(x)
    width = -(-d // COV_STRIPS)
    starts = list(range(0, d, width))

    def new_cov() -> torch.Tensor:
        return torch.zeros(d, d, dtype=torch.float64, device=x.device)

    def add(cov: torch.Tensor, rows: slice) -> None:
        centred = (x[rows].to(torch.float64) - mean).to(products)
        for s0 in starts:
            strip = slice(s0, min(s0 + width, d))
            cov[strip, s0:] += centred[:, strip].T @ centred[:, s0:]

    parts = run_tasks(row_chunks(n, x.device), new_cov, add, x.device)
    cov = sum(parts[1:], parts[0])
    for s0 in starts:
        below = min(s0 + width, d)
        cov[below:, s0:below] = cov[s0:below, below:].T
    cov /= n - 1
    # NaN/inf in X always end up here; only then look for them
    message = "X values are too large: their covariance overflows float64"
    check_finite_or_defer(torch.isfinite(cov).all(), x, message, checks)
    return mean, cov


def _score_from_cov(cov: torch.Tensor, symmetric: bool, psd: bool = False) -> float:
    """IsoScore of the spectrum of ``cov``. PSD (a covariance, or one shrunk towards the identity): from
    the participation ratio, no decomposition. Otherwise the singular values: for a symmetric matrix
    |eigenvalues| (``eigvalsh`` is faster and more accurate than ``svdvals``), else ``svdvals``."""
    if psd:
        return _score_from_participation_ratio(cov)
    with _small_lapack(cov.device):
        if not symmetric:
            return _score_from_spectrum(torch.linalg.svdvals(cov))
        eig = torch.linalg.eigvalsh((cov + cov.T) * 0.5)  # exactly symmetric for eigvalsh
    return _score_from_spectrum(eig.abs())


def _score_from_participation_ratio(cov: torch.Tensor) -> float:
    """``(PR - 1) / (d - 1)`` with ``PR = (tr C)^2 / ||C||_F^2`` (module docstring); ``cov`` is first scaled
    by its largest entry (PR is scale-free) so that squares cannot overflow. All-zero ``cov``: NaN."""
    return float(isoscore_of_covariance(cov).item())


def isoscore_of_covariance(cov: torch.Tensor) -> torch.Tensor:
    """IsoScore of a covariance (symmetric PSD) as a 0-dim float64 tensor on its device, no host sync:
    ``(PR - 1) / (d - 1)``, ``PR = (tr C)^2 / ||C||_F^2`` of ``C / max |C_ij|`` (module docstring)."""
    d = cov.shape[0]
    scaled = cov / cov.abs().max()
    ratio = torch.trace(scaled) ** 2 / torch.linalg.matrix_norm(scaled) ** 2
    return (ratio - 1.0) / (d - 1)


@contextlib.contextmanager
def _small_lapack(device: torch.device) -> Iterator[None]:
    """Run a d x d decomposition on one CPU thread: threaded LAPACK on a busy machine spends up to
    seconds in thread synchronisation for d = 384 (measured: 5 s vs 15 ms single-threaded)."""
    threads = torch.get_num_threads()
    if device.type != "cpu" or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _score_from_spectrum(sigma: torch.Tensor) -> float:
    """IsoScore from the covariance spectrum (normalise, defect, rescale; Rudman et al. Alg. 1)."""
    d = sigma.shape[0]
    root = math.sqrt(d)
    normed = sigma * (root / torch.linalg.vector_norm(sigma))
    defect = torch.linalg.vector_norm(normed - 1.0) / math.sqrt(2.0 * (d - root))
    score = ((d - defect**2 * (d - root)) ** 2 - d) / (d * (d - 1))
    return float(score.item())
