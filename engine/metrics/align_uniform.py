"""Alignment and uniformity (Wang & Isola 2020, "Understanding Contrastive Representation Learning
through Alignment and Uniformity on the Hypersphere", ICML, eqs. 4-5; code: SsnL/align_uniform).

On L2-normalised rows (normalised here):
    align(x, y)  = mean_i ||x_i - y_i||^alpha                          (alpha = 2; lower is better, [0, 4])
    uniform(x)   = log mean_{i<j} exp(-t ||x_i - x_j||^2)              (t = 2; lower is better, [-4, 0])
Class alignment (``class_alignment``, for labelled points such as the probe's): alpha = 2 alignment with
every same-label pair (i < j) as a positive pair, exact in O(N d) from per-class sums of unit vectors:
for a class of n unit vectors u with sum S, sum_{i<j} ||u_i - u_j||^2 = n^2 - |S|^2, so its pair mean is
2 - 2 (|S|^2 - n) / (n (n - 1)); classes are weighted by their pair counts n (n - 1) / 2 (i.e. the mean over
all same-class pairs), classes of one item contribute nothing. Zero rows stay zero (like ``F.normalize``):
with m non-zero rows in the class, sum_{i<j} ||u_i - u_j||^2 = n m - |S|^2.
For uniformity over labelled points computed in the silhouette's distance blocks (no extra N^2 d work),
see ``engine.metrics.silhouette.silhouette_and_uniformity``.
SimCSE (Gao et al. 2021, Fig. 2) uses STS-B pairs with gold score > 4 as (x, y) and all STS-B sentences
for uniformity. Uniformity is computed over blocks of the pairwise matrix (J >= I only; strict upper
triangle on the diagonal blocks), with a streaming log-sum-exp, so memory stays bounded for large n;
block math is in the input dtype, the exponential sums in float64.
"""

from __future__ import annotations

import math

import torch

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, Checks, as_matrix, check_finite_or_defer, encode_labels
from engine.metrics._parallel import row_chunks, run_tasks


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


def class_alignment(X: ArrayLike, labels: ArrayLike) -> float:
    """Mean ||u_i - u_j||^2 over all pairs i < j with the same label, u = rows of ``X`` L2-normalised
    (Wang & Isola 2020 alignment, alpha = 2, same-label pairs as positives); O(N d), see the module
    docstring. ``labels``: any hashables per row, or 2-D indicator rows (distinct rows = distinct classes,
    as for the silhouette). Range [0, 4], lower = classes tighter on the sphere."""
    x = as_matrix(X, check_finite=False)
    codes, k = encode_labels(labels, x.shape[0], x.device)
    return class_alignment_from_sums(*class_unit_sums(x, codes, k))


def class_unit_sums(
    x: torch.Tensor,
    codes: torch.Tensor | None,
    k: int,
    counts: torch.Tensor | None = None,
    checks: Checks | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per class c (``codes`` in 0..k-1, or None = one class): (S (k, d) the sum of the unit vectors
    x_i / |x_i|, m (k) the number of non-zero rows, n (k) the number of rows), all float64, summed over row
    chunks by the CPU workers. Zero rows add nothing to S and m. NaN/inf in X raise a ConfigError.
    ``counts``: n when known (float64; ``bincount`` of codes on CUDA waits for the device); ``checks``: the
    finiteness check deferred into that list (``_inputs.check_finite_or_defer``)."""
    n, d = x.shape

    def new_sums() -> tuple[torch.Tensor, torch.Tensor]:
        return (
            torch.zeros(k, d, dtype=torch.float64, device=x.device),
            torch.zeros(k, dtype=torch.float64, device=x.device),
        )

    def add(state: tuple[torch.Tensor, torch.Tensor], rows: slice) -> None:
        sums, nonzero = state
        part = x[rows].to(torch.float64)
        norms = torch.linalg.vector_norm(part, dim=1)
        present = norms > 0
        inverse = torch.where(present, 1.0 / torch.where(present, norms, 1.0), 0.0)
        if codes is None:
            sums[0] += inverse @ part
            nonzero[0] += present.sum()
        else:
            sums.index_add_(0, codes[rows], part * inverse[:, None])
            nonzero.index_add_(0, codes[rows], present.to(torch.float64))

    states = run_tasks(row_chunks(n, x.device), new_sums, add, x.device)
    sums = sum((s for s, _ in states[1:]), states[0][0])
    nonzero = sum((m for _, m in states[1:]), states[0][1])
    check_finite_or_defer(torch.isfinite(sums).all(), x, "X contains NaN or infinity", checks)
    if counts is not None:
        return sums, nonzero, counts
    if codes is None:
        counts = torch.full((1,), float(n), dtype=torch.float64, device=x.device)
    else:
        counts = torch.bincount(codes, minlength=k).to(torch.float64)
    return sums, nonzero, counts


def class_alignment_from_sums(sums: torch.Tensor, nonzero: torch.Tensor, counts: torch.Tensor) -> float:
    """sum_c (n_c m_c - |S_c|^2) / sum_c n_c (n_c - 1) / 2 (module docstring), clipped to [0, 4]."""
    if not bool((counts > 1).any()):
        raise ConfigError("class_alignment needs a class with at least 2 items (same-label pairs)")
    return float(class_alignment_tensor(sums, nonzero, counts).item())


def class_alignment_tensor(sums: torch.Tensor, nonzero: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """``class_alignment_from_sums`` as a 0-dim float64 tensor, no host sync (the caller has made sure that a
    class has 2 items or more; else 0/0 = NaN)."""
    pairs = (counts * (counts - 1)).sum() / 2
    within = (counts * nonzero - (sums * sums).sum(dim=1)).sum()
    return (within / pairs).clamp(0.0, 4.0)


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
