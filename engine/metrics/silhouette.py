"""Euclidean silhouette (Rousseeuw 1987), numerically the same as scikit-learn's ``silhouette_score`` /
``silhouette_samples`` (metric="euclidean"), computed exactly but faster and in bounded memory.

For point i in cluster c_i (n_c points in cluster c):
    a(i) = sum_{j in c_i, j != i} ||x_i - x_j|| / (n_{c_i} - 1)       (mean distance to its own cluster)
    b(i) = min_{c != c_i} sum_{j in c} ||x_i - x_j|| / n_c             (nearest other cluster)
    s(i) = (b(i) - a(i)) / max(a(i), b(i)),  0 for singletons (and where a = b = 0);  score = mean_i s(i).
Defined for 2 <= number of clusters <= n - 1 (as scikit-learn).

How: the n x n distance matrix is never held. Points are sorted by cluster, then blocks
D_IJ = sqrt(max(0, |x_i|^2 + |x_j|^2 - 2 x_i.x_j)) come from one GEMM of augmented rows
[x, |x|^2, 1] . [-2x, 1, |x|^2] on centred X (centring removes most of the cancellation); the diagonal is
set to exact 0. D is symmetric, so only blocks J >= I are computed and each block also serves row block J
through its transpose: half the GEMM work of scikit-learn's full pairwise matrix. Per-cluster sums
(an (n, k) float64 table) come from contiguous column/row slices of each block (clusters are contiguous
after sorting; on CUDA a one-hot GEMM D_IJ @ H_J, which needs no host sync), or index_add for blocks that
touch very many clusters. Math runs in the input dtype (float64 -> float64; float32 -> float32 blocks
with float64 per-cluster sums) on the input's device. When the (n, k) table would be large, row blocks
are streamed over all column blocks instead (no symmetry; memory: one block and one (rows, k) table).
On the CPU the blocks are shared out to single-threaded workers (``engine.metrics._parallel``).
Precision: float32 input keeps float32's Gram-trick cancellation for nearly coincident points (distance
error ~ sqrt(eps) |x|, scikit-learn upcasts to float64 there); pass float64 for exact duplicates.
"""

from __future__ import annotations

import numpy as np
import torch

from engine.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix, encode_labels, require_finite
from engine.metrics._parallel import column_mean, row_chunks, run_tasks, worker_count

#: A block touching more clusters than this accumulates with index_add (slices would be too many ops).
MAX_SLICES = 256
#: CUDA: one-hot GEMM accumulation up to this many clusters, index_add above (no host sync).
ONE_HOT_MAX_CLUSTERS = 64
#: The symmetric path keeps an (n, clusters) float64 table per worker; above this many bytes in all,
#: rows are streamed instead.
SYMMETRIC_TABLE_BYTES = 256 * 2**20


def silhouette(X: ArrayLike, labels: ArrayLike, sample_size: int | None = None, seed: int = 0) -> float:
    """Mean silhouette coefficient of ``X`` (n, d) under ``labels`` (any hashables; 2-D = multi-label rows).

    ``sample_size`` scores a random subset like ``silhouette_score(..., sample_size, random_state=seed)``
    (same subset: ``np.random.RandomState(seed).permutation(n)[:sample_size]``).
    """
    return float(_samples(X, labels, sample_size, seed).mean().item())


def silhouette_samples(X: ArrayLike, labels: ArrayLike) -> np.ndarray:
    """Silhouette s(i) of every point, float64 (scikit-learn ``silhouette_samples``, Euclidean)."""
    return _samples(X, labels, None, 0).cpu().numpy()


def _samples(X: ArrayLike, labels: ArrayLike, sample_size: int | None, seed: int) -> torch.Tensor:
    x = as_matrix(X, check_finite=False)  # checked by _augmented at no cost
    n = x.shape[0]
    codes, k = encode_labels(labels, n, x.device)
    if sample_size is not None:
        x, codes, k = _subsample(x, codes, sample_size, seed)
        n = x.shape[0]
    if not 1 < k < n:
        raise ConfigError(
            f"silhouette needs 2 to n_samples - 1 distinct labels; got {k} label(s) for {n} samples"
        )
    counts = torch.bincount(codes, minlength=k).to(torch.float64)
    return _values(x, codes, k, counts)


def _subsample(
    x: torch.Tensor, codes: torch.Tensor, size: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor, int]:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ConfigError(f"silhouette sample_size must be a positive integer or None; got {size!r}")
    order = np.random.RandomState(seed).permutation(x.shape[0])[: int(size)]
    idx = torch.from_numpy(order).to(x.device)
    uniq, codes = torch.unique(codes[idx], return_inverse=True)
    return x[idx], codes, int(uniq.shape[0])


def _coefficients(sums: torch.Tensor, codes: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """s(i) from the (n, k) table of summed distances to each cluster (scikit-learn's conventions)."""
    own_count = counts[codes]
    intra = sums.gather(1, codes[:, None]).squeeze(1) / (own_count - 1).clamp_min(1.0)
    means = sums / counts
    means.scatter_(1, codes[:, None], float("inf"))
    inter = means.min(dim=1).values
    top = torch.maximum(intra, inter)
    defined = (own_count > 1) & (top > 0)
    return torch.where(defined, (inter - intra) / torch.where(defined, top, 1.0), 0.0)


def block_size(x: torch.Tensor) -> int:
    """Rows per block: big enough for efficient GEMMs, small enough for the CPU's cache (a 1024 x 1024
    float32 block is 4 MB) and numerous enough to balance the workers (measured best of 1024-3072)."""
    return 8192 if x.device.type == "cuda" else 1024


def _values(x: torch.Tensor, codes: torch.Tensor, k: int, counts: torch.Tensor) -> torch.Tensor:
    """s(i) for all points, computed in cluster-sorted order and returned in the original order."""
    order = torch.argsort(codes, stable=True)
    cs = codes[order]
    a_rows, b_rows = _augmented(x, order)
    step = block_size(x)
    blocks = [slice(s0, min(s0 + step, x.shape[0])) for s0 in range(0, x.shape[0], step)]
    acc = _Accumulator(cs, k, counts, blocks, x.dtype)
    if x.shape[0] * k * 8 * worker_count(x.device) <= SYMMETRIC_TABLE_BYTES:
        values = _coefficients(_sums_symmetric(a_rows, b_rows, blocks, acc), cs, counts)
    else:
        values = _values_streamed(a_rows, b_rows, blocks, acc, cs, counts)
    return torch.empty_like(values).scatter_(0, order, values)


def _augmented(x: torch.Tensor, order: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows [xc, |xc|^2, 1] and [-2 xc, 1, |xc|^2] of the centred rows xc = x[order] - mean, whose
    products are squared distances. Built by the workers in row chunks. NaN/inf in X always make some
    |xc|^2 non-finite: only then is X searched for them (saving a full pass over X)."""
    n, d = x.shape
    mean = column_mean(x).to(x.dtype)
    a_rows = torch.empty(n, d + 2, dtype=x.dtype, device=x.device)
    b_rows = torch.empty_like(a_rows)

    def fill(_: None, rows: slice) -> None:
        xc = torch.sub(x[order[rows]], mean, out=a_rows[rows, :d])
        torch.mul(xc, -2.0, out=b_rows[rows, :d])
        torch.sum(xc * xc, dim=1, out=a_rows[rows, d])

    run_tasks(row_chunks(n, x.device), lambda: None, fill, x.device)
    b_rows[:, d + 1] = a_rows[:, d]
    a_rows[:, d + 1] = 1.0
    b_rows[:, d] = 1.0
    if not bool(torch.isfinite(a_rows[:, d]).all()):
        require_finite(x)
        raise ConfigError("X values are too large: squared distances overflow; rescale the embeddings")
    return a_rows, b_rows


def _distances(a_rows: torch.Tensor, b_rows: torch.Tensor, i: slice, j: slice) -> torch.Tensor:
    d = torch.mm(a_rows[i], b_rows[j].T)
    d.clamp_(min=0.0).sqrt_()
    if i == j:
        d.fill_diagonal_(0.0)
    return d


def host_slices(device: torch.device) -> bool:
    """Slice sums need the cluster boundaries on the host: right on the CPU; CUDA avoids the sync."""
    return device.type == "cpu"


class _Accumulator:
    """Adds a distance block's per-cluster sums into an (rows, k) float64 table.

    Clusters are contiguous (sorted points), so a block's columns cover clusters first..last: on the CPU
    their sums are slice sums (cheap, cascade-summed); on CUDA a one-hot GEMM; index_add when many.
    """

    def __init__(self, codes: torch.Tensor, k: int, counts: torch.Tensor, blocks: list[slice], dtype) -> None:
        self.codes, self.k = codes, k
        self.onehot = None
        self.spans: dict[int, tuple[int, list[tuple[int, int]]]] = {}
        if not host_slices(codes.device):
            if k <= ONE_HOT_MAX_CLUSTERS:
                self.onehot = torch.zeros(codes.shape[0], k, dtype=dtype, device=codes.device)
                self.onehot.scatter_(1, codes[:, None], 1.0)
            return
        ends = np.cumsum(counts.to(torch.int64).numpy())
        for blk in blocks:
            first = int(np.searchsorted(ends, blk.start, side="right"))
            last = int(np.searchsorted(ends, blk.stop - 1, side="right"))
            if last - first < MAX_SLICES:
                starts = np.concatenate([[0], ends])
                cuts = [
                    (max(int(starts[c]), blk.start) - blk.start, min(int(ends[c]), blk.stop) - blk.start)
                    for c in range(first, last + 1)
                ]
                self.spans[blk.start] = (first, cuts)

    def add_rows(self, out: torch.Tensor, d: torch.Tensor, cols: slice) -> None:
        """out (rows, k) += per-cluster sums over the columns of d (its columns are the points ``cols``)."""
        if cols.start in self.spans:
            first, cuts = self.spans[cols.start]
            part = torch.stack([d[:, lo:hi].sum(dim=1) for lo, hi in cuts], dim=1)
            out[:, first : first + len(cuts)] += part
        elif self.onehot is not None:
            out += torch.mm(d, self.onehot[cols]).to(torch.float64)
        else:
            out.index_add_(1, self.codes[cols], d.to(torch.float64))

    def add_cols(self, out: torch.Tensor, d: torch.Tensor, rows: slice) -> None:
        """out (cols, k) += per-cluster sums over the rows of d (the transposed block's contribution)."""
        if rows.start in self.spans:
            first, cuts = self.spans[rows.start]
            part = torch.stack([d[lo:hi].sum(dim=0) for lo, hi in cuts], dim=1)
            out[:, first : first + len(cuts)] += part
        else:
            self.add_rows(out, d.T, rows)


def _sums_symmetric(a_rows, b_rows, blocks: list[slice], acc: _Accumulator) -> torch.Tensor:
    """(n, k) table from the blocks J >= I only, shared out to the workers (one table each, summed)."""
    pairs = [(i, j) for bi, i in enumerate(blocks) for j in blocks[bi:]]

    def new_table() -> torch.Tensor:
        return torch.zeros(a_rows.shape[0], acc.k, dtype=torch.float64, device=a_rows.device)

    def step(sums: torch.Tensor, pair: tuple[slice, slice]) -> None:
        i, j = pair
        d = _distances(a_rows, b_rows, i, j)
        acc.add_rows(sums[i], d, j)
        if j != i:
            acc.add_cols(sums[j], d, i)

    tables = run_tasks(pairs, new_table, step, a_rows.device)
    total = tables[0]
    for table in tables[1:]:
        total += table
    return total


def _values_streamed(a_rows, b_rows, blocks, acc, codes, counts) -> torch.Tensor:
    """Row blocks one at a time over all column blocks (memory: one block and one (rows, k) table each)."""
    values: dict[int, torch.Tensor] = {}

    def step(out: dict[int, torch.Tensor], i: slice) -> None:
        part = torch.zeros(i.stop - i.start, acc.k, dtype=torch.float64, device=a_rows.device)
        for j in blocks:
            acc.add_rows(part, _distances(a_rows, b_rows, i, j), j)
        out[i.start] = _coefficients(part, codes[i], counts)

    run_tasks(blocks, lambda: values, step, a_rows.device)
    return torch.cat([values[i.start] for i in blocks])
