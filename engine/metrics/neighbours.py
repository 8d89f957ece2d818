"""Exact Euclidean k nearest neighbours, in the format umap-learn's ``UMAP(precomputed_knn=(idx, dist))``
expects: each row's first neighbour is the point itself at distance 0 (as ``nearest_neighbors`` returns).

Candidates come from chunked torch ``topk`` on squared distances |x_i|^2 + |x_j|^2 - 2 x_i.x_j of centred
rows (a few spare candidates per row); they are then re-ranked by distances recomputed directly as
||x_i - x_j|| in float64, so near-ties and cancellation cannot misorder them. Memory: one (block, n) slab.
"""

from __future__ import annotations

import numpy as np
import torch

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix
from engine.metrics._parallel import run_tasks

#: Extra candidates per row, re-ranked exactly.
SPARE = 8


def knn(X: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices int64 (n, k), distances float32 (n, k)) of the k nearest rows, the point itself first."""
    x = as_matrix(X)
    n = x.shape[0]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ConfigError(f"knn k must be an integer from 1 to the number of points ({n}); got {k!r}")
    k = int(k)
    xc = x - x.to(torch.float64).mean(dim=0, keepdim=True).to(x.dtype)
    sq = (xc * xc).sum(dim=1)
    width = min(n, k + SPARE)
    step = max(1, min(n, 2**23 // n, 2**22 // (width * x.shape[1] or 1)))  # slab, re-rank <= 32 MB
    slabs = [(s0, torch.arange(s0, min(s0 + step, n), device=x.device)) for s0 in range(0, n, step)]

    def step_fn(out: dict[int, tuple[torch.Tensor, torch.Tensor]], slab: tuple[int, torch.Tensor]) -> None:
        start, rows = slab
        d2 = torch.addmm(sq[rows, None] + sq[None, :], xc[rows], xc.T, alpha=-2.0)
        d2[torch.arange(rows.shape[0], device=x.device), rows] = -1.0  # self first, even among duplicates
        cand = torch.topk(d2, width, dim=1, largest=False).indices
        out[start] = _rerank(x, rows, cand, k)

    found: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    run_tasks(slabs, lambda: found, step_fn, x.device)
    parts = [found[s0] for s0 in range(0, n, step)]
    return (
        torch.cat([p[0] for p in parts]).cpu().numpy().astype(np.int64),
        torch.cat([p[1] for p in parts]).to(torch.float32).cpu().numpy(),
    )


def _rerank(
    x: torch.Tensor, rows: torch.Tensor, cand: torch.Tensor, k: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Keep the k candidates with the smallest exact float64 distance; the point itself stays first."""
    x64 = x[rows].to(torch.float64)
    diff = x[cand].to(torch.float64) - x64[:, None, :]
    dist = torch.linalg.vector_norm(diff, dim=2)
    is_self = cand == rows[:, None]
    dist = torch.where(is_self, 0.0, dist)
    key = torch.where(is_self, -1.0, dist)
    order = torch.sort(key, dim=1, stable=True).indices[:, :k]
    return cand.gather(1, order), dist.gather(1, order)
