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
(expand ||sigma_hat - 1||^2 = 2d - 2 sqrt(d) sum(sigma) / ||sigma||). ``isoscore_of_covariance`` is the
one kernel that computes it (every IsoScore of the lab calls it: ``isoscore``, ``isoscore_star``, the
isotropy profile, the probe): no d x d eigendecomposition (15 ms of the 19 ms per call at d = 384,
measured), same value to rounding; a spectrum that is not a PSD covariance's goes in as diag(sigma).
k equal-variance dimensions (and d - k empty ones) score exactly (k - 1)/(d - 1). With n <= d samples
the covariance has rank <= n - 1, so the score is capped at (n - 2)/(d - 1): use IsoScore* (shrinkage)
or more samples. The covariance is summed in float64 on the input's device from products in the input
dtype (2.0.1 works in the input dtype on the CPU, and its sqrt(d) constants are float32; differences are
~1e-7).
Constant points (all variances 0) give NaN, as in 2.0.1.
"""

from __future__ import annotations

import math
import warnings

import torch

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, Checks, as_matrix, check_finite_or_defer
from engine.metrics._parallel import column_mean, one_lapack_thread, row_chunks, run_tasks

#: Column strips of the covariance product (only the upper block triangle is multiplied).
COV_STRIPS = 4


class FewSamplesWarning(UserWarning):
    """IsoScore of n <= d points is capped at (n - 2)/(d - 1) by the rank of the covariance."""


def isoscore(X: ArrayLike) -> float:
    """IsoScore of the rows of ``X`` (n_samples, d); see the module docstring for the formula."""
    x = _checked(X, "IsoScore")
    return float(isoscore_of_covariance(_covariance(x)).item())


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
    spectrum = _spectrum_matrix(shrunk, symmetric=bool(torch.equal(c0, c0.T)), psd=C0 is None)
    return float(isoscore_of_covariance(spectrum).item())


def isoscore_cap(n: int, d: int) -> float:
    """The largest IsoScore that n samples in d dimensions can reach: min(1, (n - 2)/(d - 1))."""
    return min(1.0, max(0.0, (n - 2) / (d - 1)))


def _checked(X: ArrayLike, what: str) -> torch.Tensor:
    x = as_matrix(X, check_finite=False)
    n, d = x.shape
    if n < 2 or d < 2:
        raise ConfigError(f"{what} needs at least 2 samples and 2 dimensions; got X of shape ({n}, {d})")
    warn_if_few_samples(n, d, what, stacklevel=3)
    return x


def warn_if_few_samples(n: int, d: int, what: str = "IsoScore", stacklevel: int = 2) -> None:
    """Warn ``FewSamplesWarning`` when n <= d: the score is then capped at :func:`isoscore_cap`.
    ``stacklevel`` as for ``warnings.warn`` called where this function is called."""
    if n <= d and d > 1:
        warnings.warn(
            f"{what} of {n} samples in {d} dimensions is capped at (n-2)/(d-1) = {isoscore_cap(n, d):.4f}; "
            "use more samples than dimensions (or IsoScore* shrinkage)",
            FewSamplesWarning,
            stacklevel=stacklevel + 1,
        )


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


def _spectrum_matrix(cov: torch.Tensor, symmetric: bool, psd: bool) -> torch.Tensor:
    """A symmetric PSD matrix with the singular values of ``cov`` as its spectrum, for
    :func:`isoscore_of_covariance`. PSD (a covariance, or one shrunk towards the identity): ``cov`` itself,
    no decomposition. Otherwise ``diag(sigma)`` of the singular values: for a symmetric matrix
    |eigenvalues| (``eigvalsh`` is faster and more accurate than ``svdvals``), else ``svdvals``."""
    if psd:
        return cov
    with one_lapack_thread(cov.device):
        if not symmetric:
            return torch.diag(torch.linalg.svdvals(cov))
        eig = torch.linalg.eigvalsh((cov + cov.T) * 0.5)  # exactly symmetric for eigvalsh
    return torch.diag(eig.abs())


def isoscore_of_covariance(cov: torch.Tensor, d: int | None = None) -> torch.Tensor:
    """The IsoScore kernel, which every IsoScore of the lab calls: ``(PR - 1) / (d - 1)`` with the
    participation ratio ``PR = (tr C)^2 / ||C||_F^2 = (sum sigma)^2 / sum sigma^2`` of the spectrum sigma
    of ``cov`` (Rudman et al. 2022, Alg. 1, rewritten: module docstring), as a 0-dim float64 tensor on
    ``cov``'s device, no host sync.

    ``cov``: any symmetric PSD matrix whose non-zero eigenvalues are the spectrum: the d x d covariance,
    the N x N centred Gram matrix / (N - 1) (same non-zero eigenvalues), or ``diag(sigma)``. ``d``: the
    dimension of the points (default: ``cov``'s side). ``cov`` is scaled by its largest entry (PR is
    scale-free) so that squares cannot overflow. Guards: d < 2 and an all-zero ``cov`` give NaN."""
    d = cov.shape[0] if d is None else d
    if d < 2:
        return torch.full((), math.nan, dtype=torch.float64, device=cov.device)
    cov = cov.to(torch.float64)
    top = cov.abs().max()
    scaled = cov / top
    ratio = torch.trace(scaled) ** 2 / torch.linalg.matrix_norm(scaled) ** 2
    return torch.where(top > 0, (ratio - 1.0) / (d - 1), math.nan)
