"""Alignment and uniformity (Wang & Isola 2020, "Understanding Contrastive Representation Learning
through Alignment and Uniformity on the Hypersphere", ICML, eqs. 4-5; code: SsnL/align_uniform).

On L2-normalised rows (normalised here):
    align(x, y)  = mean_i ||x_i - y_i||^alpha                          (alpha = 2; lower is better, [0, 4])
    uniform(x)   = log mean_{i<j} exp(-t ||x_i - x_j||^2)              (t = 2; lower is better, [-4, 0])
SimCSE (Gao et al. 2021, Fig. 2) uses STS-B pairs with gold score > 4 as (x, y) and all STS-B sentences
for uniformity. Uniformity is computed over blocks of the pairwise matrix (J >= I only; strict upper
triangle on the diagonal blocks), with a streaming log-sum-exp, so memory stays bounded for large n;
block math is in the input dtype, the exponential sums in float64.
"""

from __future__ import annotations

import math

import torch

from engine.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix
from engine.metrics._parallel import run_tasks


def alignment(x: ArrayLike, y: ArrayLike, alpha: float = 2.0) -> float:
    """Mean ||x_i - y_i||^alpha over the positive pairs (rows of x and y), rows L2-normalised first."""
    a, b = as_matrix(x, "x"), as_matrix(y, "y")
    if a.shape != b.shape:
        raise ConfigError(
            f"alignment needs x and y of the same shape; got {tuple(a.shape)} and {tuple(b.shape)}"
        )
    if a.shape[0] < 1:
        raise ConfigError("alignment needs at least one pair")
    if not alpha > 0:
        raise ConfigError(f"alignment alpha must be > 0; got {alpha}")
    a, b = _normalised(a), _normalised(b.to(a.device))
    dist = torch.linalg.vector_norm(a - b, dim=1)
    return float(dist.pow(alpha).mean().item())


def uniformity(x: ArrayLike, t: float = 2.0) -> float:
    """log of the mean Gaussian potential exp(-t ||x_i - x_j||^2) over pairs i < j, rows L2-normalised."""
    a = as_matrix(x, "x")
    n = a.shape[0]
    if n < 2:
        raise ConfigError(f"uniformity needs at least 2 rows; got {n}")
    if not t > 0:
        raise ConfigError(f"uniformity t must be > 0; got {t}")
    a = _normalised(a)
    step = 4096 if a.device.type == "cuda" else 1024
    blocks = [slice(s0, min(s0 + step, n)) for s0 in range(0, n, step)]
    pairs = [(i, j) for bi, i in enumerate(blocks) for j in blocks[bi:]]

    def step_fn(parts: list[torch.Tensor], pair: tuple[slice, slice]) -> None:
        i, j = pair
        exponent = _exponents(a[i], a[j], t, diagonal=i == j)
        if exponent.numel():
            parts.append(_logsumexp64(exponent))

    parts = [p for worker in run_tasks(pairs, list, step_fn, a.device) for p in worker]
    total = torch.logsumexp(torch.stack(parts), dim=0)
    return float((total - math.log(n * (n - 1) / 2)).item())


def _normalised(a: torch.Tensor) -> torch.Tensor:
    """Rows divided by their L2 norm (zero rows stay zero, like ``F.normalize``)."""
    return torch.nn.functional.normalize(a, dim=1)


def _exponents(xi: torch.Tensor, xj: torch.Tensor, t: float, diagonal: bool) -> torch.Tensor:
    """-t ||x_i - x_j||^2 for a block, with ||x_i - x_j||^2 = |x_i|^2 + |x_j|^2 - 2 x_i.x_j (clamped >= 0)."""
    sq_i = (xi * xi).sum(dim=1, keepdim=True)
    sq_j = (xj * xj).sum(dim=1, keepdim=True)
    d2 = torch.addmm(sq_i + sq_j.T, xi, xj.T, alpha=-2.0).clamp_(min=0.0)
    if diagonal:
        upper = torch.triu_indices(d2.shape[0], d2.shape[1], offset=1, device=d2.device)
        d2 = d2[upper[0], upper[1]]
    return d2.mul_(-t)


def _logsumexp64(values: torch.Tensor) -> torch.Tensor:
    """log sum exp of a block, exponentials summed in float64 (stable: shifted by the block max)."""
    top = values.max()
    return top.to(torch.float64) + torch.log(torch.exp(values - top).sum(dtype=torch.float64))
