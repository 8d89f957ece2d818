"""The collapse lens of non-contrastive training: RankMe, α-ReQ and the per-dimension spread of the unit
embeddings, exact (float64), on numpy arrays or torch tensors.

For points Z (N samples x d dims):
- ``rankme``: RankMe (Garrido, Balestriero, Najman & LeCun 2023, ICML): sigma the min(N, d) singular
  values of Z *as given* (not centred), p_k = sigma_k / sum sigma + 1e-7,
  RankMe = exp(-sum_k p_k log p_k); about 1 (one direction: collapse) to min(N, d).
  It is the lab's ``effective_rank`` (:mod:`engine.metrics.isotropy`), the same computation under the
  paper's name; an all-zero Z gives NaN.
- ``alpha_req``: α-ReQ (Agrawal, Mondal, Ghosh & Richards 2022, NeurIPS, "α-ReQ: Assessing representation
  quality in self-supervised learning by measuring eigenspectrum decay"): the eigenvalues
  lambda_1 >= ... >= lambda_d of the sample covariance (``np.cov(Z.T)``) are fitted by a power law
  lambda_k ~ c k^-α, by least squares of log lambda_k on log k over the ranks k = 1 .. K, where
  K = min(N - 1, d) (the largest possible rank of the covariance; the first ``skip`` ranks may be left out).
  Eigenvalues at or below 1e-12 * lambda_1 within that range (zero up to rounding: log 0 is -inf) are left
  out of the fit; with fewer than 2 left the result is NaN. Small α: a flat spectrum (isotropic); large α:
  the variance in a few directions (towards collapse).
- ``dim_std``: the standard deviation over the samples (ddof = 1) of each dimension of the ℓ2-normalised
  rows u_i = z_i / |z_i| (SimSiam, Chen & He 2021, Sec. 4.1); for rows spread evenly over the sphere each is
  about 1/sqrt(d), at full collapse 0. ``dim_std_mean`` / ``dim_std_min`` are its mean and minimum.
  Zero rows stay zero (they have no direction).

``collapse_profile`` gives α-ReQ and the two std measures at once (RankMe is logged as ``effective_rank``).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from engine.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix
from engine.metrics.isotropy import effective_rank, spectrum

#: eigenvalues at or below this share of the largest are zero to rounding and left out of the α-ReQ fit
ZERO_EIGENVALUE = 1e-12


def rankme(Z: ArrayLike) -> float:
    """RankMe of ``Z`` (N, d): exp of the entropy of sigma / sum sigma + 1e-7 (Garrido et al. 2023)."""
    return effective_rank(Z)


def alpha_fit(eigenvalues: ArrayLike, n_samples: int, skip: int = 0) -> float:
    """α of the least-squares fit log lambda_k = c - α log k over ranks k = skip+1 .. min(N - 1, d) of
    covariance ``eigenvalues`` (descending), leaving out those <= 1e-12 * lambda_1; NaN with < 2 left."""
    lam = np.sort(np.asarray(eigenvalues, dtype=np.float64).ravel())[::-1]
    last = min(int(n_samples) - 1, lam.size)
    if last < 1 or not lam.size or not lam[0] > 0:
        return math.nan
    ranks = np.arange(1, lam.size + 1, dtype=np.float64)
    keep = (ranks > skip) & (ranks <= last) & (lam > ZERO_EIGENVALUE * lam[0])
    if int(keep.sum()) < 2:
        return math.nan
    x, y = np.log(ranks[keep]), np.log(lam[keep])
    x = x - x.mean()
    return float(-(x @ (y - y.mean())) / (x @ x))


def alpha_req(Z: ArrayLike, skip: int = 0) -> float:
    """α-ReQ of ``Z`` (N, d): the power-law decay α of its covariance eigenvalues (module docstring)."""
    x = _checked(Z, "alpha_req")
    return alpha_fit(spectrum(x), x.shape[0], skip)


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
        "alpha_req": alpha_fit(lam, x.shape[0]),
        "dim_std_mean": float(stds.mean()),
        "dim_std_min": float(stds.min()),
    }


def _checked(Z: ArrayLike, what: str) -> torch.Tensor:
    x = as_matrix(Z)
    if x.shape[0] < 2 or x.shape[1] < 1:
        raise ConfigError(f"{what} needs at least 2 samples and 1 dimension; got Z of shape {tuple(x.shape)}")
    return x
