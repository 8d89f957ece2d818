"""JEPA's objective and its anti-collapse regularisers, as plain functions of embedding batches.

- :func:`prediction_loss`: BYOL's 2 − 2·cos(p, sg(t)) (Grill et al. 2020, eq. 2), mean over the batch;
  the stop-gradient is the caller's (the target passed detached or not);
- :func:`vicreg_terms`: VICReg's invariance, variance and covariance (Bardes, Ponce & LeCun 2022, eq. 1–4):
  invariance = mean squared difference of the two views; variance = mean over dimensions of
  max(0, 1 − √(Var z_j + 10⁻⁴)) (per view, averaged over the views); covariance = sum of the squared
  off-diagonal entries of the covariance / d (per view, averaged);
- :func:`epps_pulley`: the Epps–Pulley statistic of a 1-D sample x_1..x_N against N(0, 1) (Epps & Pulley
  1983), as LeJEPA's SIGReg uses it (Balestriero & LeCun 2025, arXiv 2511.08544):
  EP = N ∫ |φ_N(t) − e^{−t²/2}|² e^{−t²/2} dt, φ_N(t) = (1/N) Σ_j e^{i t x_j} the empirical characteristic
  function, by the trapezoid rule on t ∈ [−T, T] (T = 5, 129 knots; the weight makes the tails beyond
  negligible: < 10⁻⁶ N). Its expectation for Gaussian samples is √(2π) − √(2π/3) ≈ 1.06 whatever N; for
  a collapsed batch (every x_j alike) it grows as N;
- :func:`sigreg`: the mean of :func:`epps_pulley` over the projections of the batch on ``projections``
  random unit directions (drawn from a seeded generator: the same on every rank);
- :func:`regulariser_loss`: the weighted term the config asks for (none, VICReg or SIGReg).

All are computed in float32 even under autocast.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

QUADRATURE_LIMIT = 5.0
QUADRATURE_KNOTS = 129
VARIANCE_EPS = 1e-4


def prediction_loss(prediction: Tensor, target: Tensor) -> Tensor:
    """Mean over rows of 2 − 2·cos(prediction_i, target_i) (0: aligned, 4: opposite)."""
    with torch.autocast(device_type=prediction.device.type, enabled=False):
        cos = F.cosine_similarity(prediction.float(), target.float(), dim=-1)
        return (2.0 - 2.0 * cos).mean()


def vicreg_terms(z1: Tensor, z2: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(invariance, variance, covariance) of VICReg for two views (N, d) of the same N items."""
    with torch.autocast(device_type=z1.device.type, enabled=False):
        a, b = z1.float(), z2.float()
        invariance = F.mse_loss(a, b)
        variance = (_variance_hinge(a) + _variance_hinge(b)) / 2
        covariance = (_off_diagonal_covariance(a) + _off_diagonal_covariance(b)) / 2
    return invariance, variance, covariance


def _variance_hinge(z: Tensor) -> Tensor:
    std = torch.sqrt(z.var(dim=0) + VARIANCE_EPS)
    return F.relu(1.0 - std).mean()


def _off_diagonal_covariance(z: Tensor) -> Tensor:
    n, d = z.shape
    centred = z - z.mean(dim=0)
    cov = centred.T @ centred / (n - 1)
    off = cov - torch.diag(torch.diagonal(cov))
    return off.pow(2).sum() / d


def epps_pulley(x: Tensor) -> Tensor:
    """The Epps–Pulley statistic of each column of ``x`` (N, M) against N(0, 1): a tensor of M values."""
    with torch.autocast(device_type=x.device.type, enabled=False):
        x = x.float()
        t = torch.linspace(0.0, QUADRATURE_LIMIT, QUADRATURE_KNOTS, device=x.device)
        gauss = torch.exp(-0.5 * t * t)
        angles = x.unsqueeze(-1) * t  # (N, M, K)
        real = torch.cos(angles).mean(dim=0) - gauss  # (M, K)
        imag = torch.sin(angles).mean(dim=0)
        integrand = (real * real + imag * imag) * gauss
        step = QUADRATURE_LIMIT / (QUADRATURE_KNOTS - 1)
        half = step * (integrand.sum(dim=-1) - 0.5 * (integrand[..., 0] + integrand[..., -1]))
        return 2.0 * half * x.shape[0]  # the integrand is even in t


def sigreg(z: Tensor, projections: int, seed: int) -> Tensor:
    """SIGReg of a batch ``z`` (N, d): mean Epps–Pulley statistic of its projections on ``projections``
    random unit directions, drawn on the CPU from ``seed`` (the same on every rank), moved to z's device."""
    generator = torch.Generator().manual_seed(int(seed))
    directions = F.normalize(torch.randn(z.shape[1], projections, generator=generator), dim=0)
    with torch.autocast(device_type=z.device.type, enabled=False):
        return epps_pulley(z.float() @ directions.to(z.device)).mean()


def regulariser_loss(config: Any, z1: Tensor, z2: Tensor, seed: int) -> Tensor:
    """The anti-collapse term of ``config.regulariser`` on the online embeddings of the two views: 0;
    λ·invariance + μ·variance + ν·covariance (VICReg, weights 25/25/1 by default); or λ times the mean of
    SIGReg over the two views (the same directions for both, drawn from ``seed``)."""
    if config.regulariser == "vicreg":
        invariance, variance, covariance = vicreg_terms(z1, z2)
        return (
            config.vicreg_invariance * invariance
            + config.vicreg_variance * variance
            + config.vicreg_covariance * covariance
        )
    if config.regulariser == "sigreg":
        both = sigreg(z1, config.sigreg_projections, seed) + sigreg(z2, config.sigreg_projections, seed)
        return config.sigreg_weight * both / 2
    return z1.new_zeros((), dtype=torch.float32)
