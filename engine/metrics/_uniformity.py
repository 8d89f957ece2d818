"""The uniformity summed inside the silhouette's distance blocks (``engine.metrics.silhouette``, whose module
docstring derives it): Wang & Isola 2020 (ICML, eq. 5), uniform = log mean_{i<j} exp(-t ||u_i - u_j||^2)
of the L2-normalised rows, from the blocks M = w_i w_j D^2_ij with w_i = 1 / |x_i|."""

from __future__ import annotations

import math

import torch

#: Largest uniformity temperature t of the combined pass (no float32 over/underflow below it).
MAX_UNIFORMITY_T = 20.0


class _Uniformity:
    """Sum over the pairs i < j of a block of exp(-t ||u_i - u_j||^2), from its scaled squared distances
    M = w_i w_j D^2 (module docstring: f_I^T 2^e f_J with e = (t / ln 2)(n_i w_j + w_i n_j - M)).

    Zero rows (n_i = 0) are left out of the blocks (f_i = 0; their rows are scaled by s_i = 1, which
    keeps M finite) and counted exactly in ``result``: exp(-t) with every non-zero row, 1 with another
    zero row (||0 - 0|| = 0), as F.normalize leaves them zero.

    ``deferred``: the count of zero rows stays on the device (reading it is a host sync on CUDA) and every
    block takes the weighted sum f_I^T 2^e f_J, which is exact with or without zero rows (the plain sum,
    used when there are none, differs from it by float rounding only)."""

    def __init__(self, norms: torch.Tensor, t: float, dtype: torch.dtype, deferred: bool = False) -> None:
        present = norms > 0
        safe = torch.where(present, norms, 1.0)
        inverse = torch.where(present, 1.0 / safe, 0.0)
        factor = t / math.log(2.0)
        self.t, self.factor = t, factor
        self.n = norms.shape[0]
        zeros = (~present).sum()
        self.zero_rows: int | torch.Tensor = zeros.to(torch.float64) if deferred else int(zeros.item())
        self.scale = (1.0 / safe).to(dtype)  # s_i: rows scaled so that blocks are s_i s_j D^2
        self.root_norms64 = safe.sqrt()  # 1 / sqrt(s_i): D_ij = sqrt(block) * root_i * root_j
        self.root_norms = self.root_norms64.to(dtype)
        self.scaled_norms = (norms * factor).to(dtype)  # (t / ln 2) n_i
        self.inverse = inverse.to(dtype)  # w_i
        self.weights = torch.full_like(norms, math.exp(-t)).masked_fill_(~present, 0.0).to(dtype)  # f_i
        self.weights64 = self.weights.to(torch.float64)

    def block_sum(self, m: torch.Tensor, i: slice, j: slice, out: torch.Tensor) -> torch.Tensor:
        """Float64 0-dim sum over the block's pairs (i < j within a diagonal block); ``out``: scratch."""
        e = torch.addr(m, self.scaled_norms[i], self.inverse[j], beta=-self.factor, out=out)
        e.addr_(self.inverse[i], self.scaled_norms[j])
        e.exp2_()
        if i == j:
            e.fill_diagonal_(0.0)
        if not isinstance(self.zero_rows, int) or self.zero_rows:
            total = self.weights64[i] @ torch.mv(e, self.weights[j]).to(torch.float64)
        else:  # every f_i = e^-t: one plain (cascade) sum
            total = e.sum().to(torch.float64) * math.exp(-2.0 * self.t)
        return total * 0.5 if i == j else total

    def result(self, parts: list[torch.Tensor]) -> torch.Tensor:
        """log of the mean over all n (n - 1) / 2 pairs (zero rows added exactly), a 0-dim float64 tensor."""
        zero, nonzero = self.zero_rows, self.n - self.zero_rows
        total = torch.stack(parts).sum() + (zero * nonzero * math.exp(-self.t) + zero * (zero - 1) / 2)
        return torch.log(total) - math.log(self.n * (self.n - 1) / 2)
