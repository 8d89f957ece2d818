"""The collapse lens of non-contrastive training: α-ReQ and the per-dimension spread of the unit embeddings,
exact (float64), on numpy arrays or torch tensors. The lens's third measure, RankMe (Garrido, Balestriero,
Najman & LeCun 2023, ICML; about 1, one direction: collapse, to min(N, d)), belongs to the isotropy family
(:mod:`engine.metrics.isotropy`), measured in its covariance pass.

For points Z (N samples x d dims):
- ``alpha_req``: α-ReQ (Agrawal, Mondal, Ghosh & Richards 2022, NeurIPS, "α-ReQ: Assessing representation
  quality in self-supervised learning by measuring eigenspectrum decay"), measured as its public reference
  implementation does (reptrix, ``reptrix/alpha.py``: ``get_alpha`` and ``get_powerlaw``, whose fit follows
  Stringer, Pachitariu et al. 2019): the eigenvalues lambda_1 >= ... >= lambda_d of the sample covariance
  (``np.cov(Z.T)``; reptrix's PCA explained-variance ratios, the same up to a scale, which moves only c)
  are fitted by a power law lambda_k ~ c k^-α by *weighted* least squares of log lambda_k on log k,
  weight 1/k, over the rank window k = a .. b (1-based, inclusive)::

      (α, log c) = argmin  sum_{k=a}^{b'} (1/k) (log lambda_k - log c + α log k)^2,
      α = - sum_k w_k (x_k - x̄)(y_k - ȳ) / sum_k w_k (x_k - x̄)^2,   x = log k, y = log lambda_k,
      w_k = 1/k, x̄ and ȳ the w-weighted means.

  The window is reptrix's default ``fit_range = np.arange(10, 100)`` (0-based), ranks a = 11 to b = 100
  (:data:`ALPHA_WINDOW`): the head of the spectrum is left out, as the reference's "fit the tail" advises.
  It is clipped to the ranks that exist: b' = min(b, N - 1, d, r), r the number of eigenvalues above
  1e-12 * lambda_1 (the rest are zero to rounding; log 0 is -inf). α and R² are NaN when fewer than
  :data:`MIN_FIT_RANKS` ranks are left, b' < a + 2: with the default window N < 14, d < 13, fewer than 13
  non-zero eigenvalues (a collapse to under 13 directions), or no variance at all (a constant Z).
  ``alpha_req_fit`` also gives the fit's R² = 1 - sum (y - ŷ)^2 / sum (y - mean y)^2 over the window's
  ranks, unweighted (reptrix's ``fit_R2_100``, a goodness of fit over the same ranks; NaN when log lambda
  is constant there). Small α: a flat spectrum (isotropic); large α: the variance in a few directions
  (towards collapse). The former estimator of this lab (all ranks 1 .. min(N - 1, d), unweighted) read a
  true α of 1.0 as 1.6 at N 473, d 384 and moved with N; this one is within 0.05 of it there.
- ``dim_std``: the standard deviation over the samples (ddof = 1) of each dimension of the ℓ2-normalised
  rows u_i = z_i / |z_i| (SimSiam, Chen & He 2021, Sec. 4.1); for rows spread evenly over the sphere each is
  about 1/sqrt(d), at full collapse 0. ``dim_std_mean`` / ``dim_std_min`` are its mean and minimum.
  Zero rows stay zero (they have no direction).

``collapse_profile`` gives α-ReQ and the two std measures at once
(:data:`engine.core.measures.COLLAPSE_PROFILE`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch

from engine.core import measures
from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix
from engine.metrics.isotropy import spectrum

#: eigenvalues at or below this share of the largest are zero to rounding and left out of the α-ReQ fit
ZERO_EIGENVALUE = 1e-12

#: α-ReQ's rank window (first, last), 1-based and inclusive: reptrix's default fit range, 0-based 10 .. 99
ALPHA_WINDOW = (11, 100)

#: the fewest ranks a power-law fit is made on (two points always fit a line exactly: R² 1 says nothing)
MIN_FIT_RANKS = 3


class AlphaFit(NamedTuple):
    """An α-ReQ fit: ``alpha`` (the decay), ``r2`` (its R² in log-log, over the fitted ranks), and the
    ranks ``first`` .. ``last`` it was fitted on (the window clipped to the ranks that exist; NaN values and
    ``last`` < ``first`` + :data:`MIN_FIT_RANKS` - 1 when too few were left)."""

    alpha: float
    r2: float
    first: int
    last: int


def power_law_fit(eigenvalues: ArrayLike, n_samples: int, window: tuple[int, int] = ALPHA_WINDOW) -> AlphaFit:
    """α-ReQ's fit of covariance ``eigenvalues`` of ``n_samples`` points (module docstring): weighted (1/k)
    least squares of log lambda_k = log c - α log k over the ranks of ``window`` (1-based, inclusive), clipped
    to k <= min(N - 1, d) and to lambda_k > 1e-12 lambda_1. Raises ConfigError for a window that is not
    1 <= first <= last."""
    first, last = (int(v) for v in window)
    if not 1 <= first <= last:
        raise ConfigError(f"the α-ReQ window must be ranks 1 <= first <= last; got {window}")
    lam = np.sort(np.asarray(eigenvalues, dtype=np.float64).ravel())[::-1]
    if not lam.size or not np.isfinite(lam).all() or not lam[0] > 0:
        return AlphaFit(math.nan, math.nan, first, first - 1)
    rank = int(np.count_nonzero(lam > ZERO_EIGENVALUE * lam[0]))
    last = min(last, int(n_samples) - 1, lam.size, rank)
    if last - first + 1 < MIN_FIT_RANKS:
        return AlphaFit(math.nan, math.nan, first, last)
    k = np.arange(first, last + 1, dtype=np.float64)
    x, y, w = np.log(k), np.log(lam[first - 1 : last]), 1.0 / k
    dx, dy = x - (w @ x) / w.sum(), y - (w @ y) / w.sum()
    slope = float((w * dx) @ dy / ((w * dx) @ dx))
    residual = dy - slope * dx  # y - ŷ: the weighted fit passes through the weighted means
    spread = float((y - y.mean()) @ (y - y.mean()))
    r2 = 1.0 - float(residual @ residual) / spread if spread > 0 else math.nan
    return AlphaFit(-slope, r2, first, last)


def alpha_fit(eigenvalues: ArrayLike, n_samples: int, window: tuple[int, int] = ALPHA_WINDOW) -> float:
    """α of :func:`power_law_fit` (α-ReQ from a covariance spectrum already computed); NaN when too few
    ranks are left in the window."""
    return power_law_fit(eigenvalues, n_samples, window).alpha


def alpha_req_fit(Z: ArrayLike, window: tuple[int, int] = ALPHA_WINDOW) -> AlphaFit:
    """α-ReQ of ``Z`` (N, d) with its R² and the ranks fitted (module docstring)."""
    x = _checked(Z, "alpha_req")
    return power_law_fit(spectrum(x), x.shape[0], window)


def alpha_req(Z: ArrayLike, window: tuple[int, int] = ALPHA_WINDOW) -> float:
    """α-ReQ of ``Z`` (N, d): the power-law decay α of its covariance eigenvalues over the ranks of
    ``window`` (11 .. 100 by default), weights 1/k (module docstring); NaN with too few ranks."""
    return alpha_req_fit(Z, window).alpha


def dim_std(Z: ArrayLike) -> np.ndarray:
    """Per-dimension standard deviation (ddof 1) of the ℓ2-normalised rows of ``Z`` (N, d), float64 (d,)."""
    x = _checked(Z, "dim_std").to(torch.float64)
    norms = torch.linalg.vector_norm(x, dim=1, keepdim=True)
    unit = torch.where(norms > 0, x / norms.clamp_min(torch.finfo(torch.float64).tiny), torch.zeros_like(x))
    return unit.std(dim=0, correction=1).cpu().numpy()


def dim_std_mean(Z: ArrayLike) -> float:
    """Mean over dimensions of :func:`dim_std` (about 1/sqrt(d) without collapse, 0 at full collapse)."""
    return float(dim_std(Z).mean())


def dim_std_min(Z: ArrayLike) -> float:
    """Minimum over dimensions of :func:`dim_std` (0: some direction carries no variance at all)."""
    return float(dim_std(Z).min())


def collapse_profile(Z: ArrayLike, eigenvalues: ArrayLike | None = None) -> dict[str, float]:
    """``alpha_req``, ``dim_std_mean`` and ``dim_std_min`` of ``Z``; ``eigenvalues``: its covariance spectrum
    when already computed (:func:`engine.metrics.isotropy_profile`'s), so that it is not computed again."""
    x = _checked(Z, "collapse_profile")
    lam = spectrum(x) if eigenvalues is None else eigenvalues
    stds = dim_std(x)
    return {
        measures.ALPHA_REQ: alpha_fit(lam, x.shape[0]),
        measures.DIM_STD_MEAN: float(stds.mean()),
        measures.DIM_STD_MIN: float(stds.min()),
    }


def _checked(Z: ArrayLike, what: str) -> torch.Tensor:
    x = as_matrix(Z)
    if x.shape[0] < 2 or x.shape[1] < 1:
        raise ConfigError(f"{what} needs at least 2 samples and 1 dimension; got Z of shape {tuple(x.shape)}")
    return x
