"""JEPA's networks beside the online encoder: the predictor, the EMA target and its momentum schedule.

- :class:`Predictor` g: an MLP d → h → d with batch normalisation (BYOL's predictor, Grill et al. 2020:
  Linear, BatchNorm, ReLU, Linear), as a residual g(z) = z + MLP(z) whose last layer starts at zero, so that
  g starts as the identity: the first steps on a pre-trained encoder compare its own embeddings, not a random
  map of them (a documented choice of this lab; BYOL trains from scratch);
- :func:`momentum`: BYOL's schedule m_k = 1 − (1 − m₀)(cos(πk/K) + 1)/2, from m₀ at step 0 to 1 at step K;
- :func:`ema_update`: ξ ← m·ξ + (1 − m)·θ for every parameter (buffers are copied), without gradient.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from torch import nn


class Predictor(nn.Module):
    """g(z) = z + W₂ ReLU(BN(W₁ z)) + b₂, W₂ and b₂ zero at the start."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Linear(dim, hidden, bias=False),  # BN removes any bias (its gradient is 0 up to rounding)
            nn.BatchNorm1d(hidden),
            nn.ReLU(inplace=True),
            nn.Linear(hidden, dim),
        )
        nn.init.zeros_(self.mlp[-1].weight)
        nn.init.zeros_(self.mlp[-1].bias)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z + self.mlp(z)


def momentum(base: float, step: int, total: int) -> float:
    """The EMA momentum after update ``step`` of ``total`` (cosine from ``base`` to 1; BYOL Sec. 3.2)."""
    return 1.0 - (1.0 - base) * (math.cos(math.pi * step / total) + 1.0) / 2.0


@torch.no_grad()
def ema_update(target: nn.Module, online: nn.Module, m: float) -> None:
    """ξ ← m·ξ + (1 − m)·θ = lerp(ξ, θ, 1 − m) over matching parameters; buffers (e.g. position ids) copied
    from ``online``. One multi-tensor kernel each (``torch._foreach_lerp_`` / ``_foreach_copy_``), not two
    kernels per parameter."""
    xis, thetas = _matching(target.parameters(), online.parameters())
    if xis:
        torch._foreach_lerp_(xis, thetas, 1.0 - m)
    mine, theirs = _matching(target.buffers(), online.buffers())
    if mine:
        torch._foreach_copy_(mine, theirs)


def _matching(
    ours: Iterable[torch.Tensor], theirs: Iterable[torch.Tensor]
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The two modules' tensors as lists of the same length (a mismatch is an error, as ``zip(strict)``)."""
    left, right = list(ours), [tensor.detach() for tensor in theirs]
    if len(left) != len(right):
        raise ValueError(f"the EMA target has {len(left)} tensors where the online encoder has {len(right)}")
    return left, right
