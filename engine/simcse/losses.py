"""SimCSE's contrastive objectives (Gao, Yao & Chen 2021, arXiv 2104.08821, eq. 1 and eq. 5).

Both are cross-entropy over cosine similarities scaled by a temperature, one direction (z1 → candidates);
the authors found a symmetric loss made no difference (princeton-nlp/SimCSE#45).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor


def cosine_matrix(a: Tensor, b: Tensor) -> Tensor:
    """``S[i, j] = cos(a_i, b_j)`` for rows of ``a`` (n, d) and ``b`` (m, d), in float32 even under
    autocast."""
    with torch.autocast(device_type=a.device.type, enabled=False):
        a = F.normalize(a.float(), dim=-1)
        b = F.normalize(b.float(), dim=-1)
        return a @ b.T


def unsup_logits(z1: Tensor, z2: Tensor, temp: float) -> Tensor:
    """``logits[i, j] = cos(z1_i, z2_j) / τ`` — row i's positive is column i, every other column a
    negative."""
    return cosine_matrix(z1, z2) / temp


def unsup_loss(z1: Tensor, z2: Tensor, temp: float = 0.05) -> Tensor:
    r"""Unsupervised SimCSE (eq. 1), InfoNCE with in-batch negatives.

    .. math::
        \ell_i = -\log \frac{e^{\cos(z_i, z_i^+)/\tau}}{\sum_{j=1}^{N} e^{\cos(z_i, z_j^+)/\tau}}

    ``z1`` (N, d) and ``z2`` (N, d) are the two views of the same N sentences; the loss is the mean of
    :math:`\ell_i` (``cross_entropy(logits, arange(N))``). τ = 0.05 in the paper.
    """
    logits = unsup_logits(z1, z2, temp)
    labels = torch.arange(len(logits), device=logits.device)
    return F.cross_entropy(logits, labels)


def sup_logits(z1: Tensor, z2: Tensor, z3: Tensor, temp: float, hard_negative_weight: float = 1.0) -> Tensor:
    r"""``[cos(z1, z2) | cos(z1, z3)] / τ`` (N × 2N) with :math:`\log\alpha` added on the z1–z3 diagonal.

    The diagonal entry ``(i, N + i)`` is anchor i against *its own* contradiction;
    α = ``hard_negative_weight`` up-weights it inside the softmax (α = 1 adds 0). The official code's
    ``--hard_negative_weight`` is this additive term, i.e. log α (default 0).
    """
    if hard_negative_weight <= 0:
        raise ValueError(f"hard_negative_weight must be > 0, got {hard_negative_weight}")
    logits = torch.cat([cosine_matrix(z1, z2), cosine_matrix(z1, z3)], dim=1) / temp
    log_alpha = math.log(hard_negative_weight)
    if log_alpha != 0.0:
        n = len(z1)
        bonus = torch.zeros_like(logits)
        bonus[:, n:] = torch.eye(n, device=logits.device, dtype=logits.dtype) * log_alpha
        logits = logits + bonus
    return logits


def sup_loss(
    z1: Tensor, z2: Tensor, z3: Tensor, temp: float = 0.05, hard_negative_weight: float = 1.0
) -> Tensor:
    r"""Supervised SimCSE with hard negatives (eq. 5 and the α weighting of Table 7).

    .. math::
        \ell_i = -\log \frac{e^{\cos(h_i, h_i^+)/\tau}}
            {\sum_{j=1}^{N} \left(e^{\cos(h_i, h_j^+)/\tau}
            + \alpha^{\mathbb{1}[i=j]} e^{\cos(h_i, h_j^-)/\tau}\right)}

    ``z1`` anchors (premises), ``z2`` positives (entailments), ``z3`` hard negatives (contradictions), all
    (N, d). α = 1 is the paper's default; Table 7: α ∈ {0.5, 1, 2} → 86.1 / 86.2 / 86.2 STS-B dev.
    """
    logits = sup_logits(z1, z2, z3, temp, hard_negative_weight)
    labels = torch.arange(len(logits), device=logits.device)
    return F.cross_entropy(logits, labels)
