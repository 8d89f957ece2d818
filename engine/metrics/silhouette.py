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

Uniformity in the same pass (``silhouette_and_uniformity``): Wang & Isola 2020 (ICML, eq. 5, t = 2)
    uniform = log mean_{i<j} exp(-t ||u_i - u_j||^2),   u_i = x_i / |x_i|  (zero rows stay 0, as F.normalize)
is summed from the very blocks of squared distances D^2_ij = ||x_i - x_j||^2 the silhouette computes
(before their square root), so it adds no N^2 d work, only a few element-wise passes per block. With
n_i = |x_i| (float64 per row) and w_i = 1/n_i, for non-zero rows
    ||u_i - u_j||^2 = 2 - w_i w_j (n_i^2 + n_j^2 - D^2_ij),
    exp(-t ||u_i - u_j||^2) = f_i f_j 2^(e_ij),
    e_ij = (t / ln 2)(n_i w_j + w_i n_j - w_i w_j D^2_ij),  f = e^-t.
The augmented rows are scaled by s_i = w_i before the GEMM, so each block comes out as M = w_i w_j D^2
directly: the silhouette takes D_ij = sqrt(M_ij) sqrt(n_i n_j), i.e. its per-cluster sums become sums
weighted by sqrt(n_j) (matrix-vector products instead of plain sums: same cost) and the (n, k) table is
scaled by sqrt(n_i) at the end; the uniformity needs two rank-1 updates (``addr``) of M for e, one
``exp2_`` (3x faster than ``exp`` on CPU) and f_I^T 2^e f_J (a matrix-vector product, float64 dot).
Zero rows keep s_i = 1, are left out of the blocks' sums (f_i = 0) and added exactly at the end (e^-t
with every non-zero row, 1 with another zero row). The exponent of a non-zero pair lies in [-2t, 2t]
(log2 units aside) and f = e^-t, so for t <= 20 no term over- or underflows float32 and no running
maximum is needed: the block sums are sums of positive terms, added up in float64, and the log is taken
once at the end. Diagonal blocks count each pair once (diagonal zeroed, half the sum); the row-streamed
path skips blocks below the diagonal. ``silhouette`` itself keeps the unscaled blocks.
Error: the block math runs in the input dtype. Both D^2 (Gram trick) and the terms n_i w_j + w_i n_j of a
pair carry rounding ~ eps * max(n_i/n_j, n_j/n_i), so the exponent's error is ~ eps * t * (norm ratio):
~1e-6 in float32 for rows of similar norm (embeddings), ~1e-14 in float64 (pass float64 for rows whose
norms differ by orders of magnitude). The silhouette from scaled blocks differs from ``silhouette``'s by
rounding only (~1e-16 relative in float64, ~1e-7 in float32).
"""

from __future__ import annotations

import numpy as np
import torch

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, Checks, as_matrix, check_finite_or_defer, encode_labels
from engine.metrics._parallel import column_mean, row_chunks, run_tasks, worker_count
from engine.metrics._uniformity import MAX_UNIFORMITY_T, _Uniformity

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


def silhouette_and_uniformity(
    X: ArrayLike, labels: ArrayLike, sample_size: int | None = None, seed: int = 0, t: float = 2.0
) -> tuple[float, float]:
    """(silhouette, uniformity) of ``X`` from one pass over the pairwise distance blocks.

    The silhouette is exactly ``silhouette(X, labels, sample_size, seed)``; the uniformity is Wang & Isola's
    log mean_{i<j} exp(-t ||u_i - u_j||^2) of the L2-normalised rows (= ``uniformity(X, t)``), over the same
    points (the seeded subset when ``sample_size`` is given). Exact over all pairs; see the module docstring.
    ``t`` in (0, 20] (Wang & Isola: t = 2).
    """
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= MAX_UNIFORMITY_T:
        raise ConfigError(f"uniformity t must be in (0, {MAX_UNIFORMITY_T:g}]; got {t!r}")
    values, uniform = _samples(X, labels, sample_size, seed, uniformity_t=float(t))
    return float(values.mean().item()), float(uniform.item())


def _samples(X: ArrayLike, labels: ArrayLike, sample_size: int | None, seed: int, uniformity_t=None):
    """s(i) of every point; with ``uniformity_t``, the pair (s, uniformity) from the same blocks."""
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
    values, uniform = silhouette_values(x, codes, k, counts, uniformity_t)
    return values if uniformity_t is None else (values, uniform)


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


def silhouette_values(
    x: torch.Tensor,
    codes: torch.Tensor,
    k: int,
    counts: torch.Tensor,
    uniformity_t: float | None = None,
    checks: Checks | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """s(i) for all points (Rousseeuw 1987), computed in cluster-sorted order and returned in the original
    order, and the uniformity of the points (0-dim float64 tensor) when ``uniformity_t`` is given (else
    None), as tensors on x's device, for clusters already encoded (``codes`` 0..k-1 on x's device,
    ``counts`` their float64 sizes, 1 < k < n): the computation behind ``silhouette`` /
    ``silhouette_and_uniformity``, without a host sync on CUDA when ``checks`` (a list) takes the finiteness
    check (``_inputs.check_finite_or_defer``); their mean is the silhouette score."""
    order = torch.argsort(codes, stable=True)
    cs = codes[order]
    norms = None if uniformity_t is None else torch.empty(x.shape[0], dtype=torch.float64, device=x.device)
    a_rows, b_rows = _augmented(x, order, norms, checks)
    uni = None if norms is None else _Uniformity(norms, uniformity_t, x.dtype, deferred=checks is not None)
    step = block_size(x)
    blocks = [slice(s0, min(s0 + step, x.shape[0])) for s0 in range(0, x.shape[0], step)]
    acc = _Accumulator(cs, k, counts, blocks, x.dtype, None if uni is None else uni.root_norms)
    if uni is not None:  # blocks come out as s_i s_j D^2 (module docstring)
        a_rows.mul_(uni.scale[:, None])
        b_rows.mul_(uni.scale[:, None])
    if x.shape[0] * k * 8 * worker_count(x.device) <= SYMMETRIC_TABLE_BYTES:
        sums, parts = _sums_symmetric(a_rows, b_rows, blocks, acc, uni)
        if uni is not None:
            sums *= uni.root_norms64[:, None]
        values = _coefficients(sums, cs, counts)
    else:
        values, parts = _values_streamed(a_rows, b_rows, blocks, acc, cs, counts, uni)
    uniform = None if uni is None else uni.result(parts)
    return torch.empty_like(values).scatter_(0, order, values), uniform


def _augmented(
    x: torch.Tensor, order: torch.Tensor, norms: torch.Tensor | None = None, checks: Checks | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows [xc, |xc|^2, 1] and [-2 xc, 1, |xc|^2] of the centred rows xc = x[order] - mean, whose
    products are squared distances. Built by the workers in row chunks. NaN/inf in X always make some
    |xc|^2 non-finite: only then is X searched for them (saving a full pass over X). ``norms`` (float64,
    n), when given, receives the uncentred row norms |x[order]| (for the uniformity)."""
    n, d = x.shape
    mean = column_mean(x).to(x.dtype)
    a_rows = torch.empty(n, d + 2, dtype=x.dtype, device=x.device)
    b_rows = torch.empty_like(a_rows)

    def fill(_: None, rows: slice) -> None:
        part = x[order[rows]]
        if norms is not None:
            torch.linalg.vector_norm(part, dim=1, dtype=torch.float64, out=norms[rows])
        xc = torch.sub(part, mean, out=a_rows[rows, :d])
        torch.mul(xc, -2.0, out=b_rows[rows, :d])
        torch.sum(xc * xc, dim=1, out=a_rows[rows, d])

    run_tasks(row_chunks(n, x.device), lambda: None, fill, x.device)
    b_rows[:, d + 1] = a_rows[:, d]
    a_rows[:, d + 1] = 1.0
    b_rows[:, d] = 1.0
    message = "X values are too large: squared distances overflow; rescale the embeddings"
    check_finite_or_defer(torch.isfinite(a_rows[:, d]).all(), x, message, checks)
    return a_rows, b_rows


class _Worker:
    """One worker's scratch: reused block buffers (a fresh 4 MB block per GEMM costs page faults: measured
    0.3-0.4 ms of a 1024 x 1024 block's ~10 ms) and its uniformity sums. Lives for one call only."""

    def __init__(self) -> None:
        self.parts: list[torch.Tensor] = []
        self._buffers: dict[str, torch.Tensor] = {}

    def buffer(self, slot: str, rows: int, cols: int, like: torch.Tensor) -> torch.Tensor:
        flat = self._buffers.get(slot)
        if flat is None or flat.numel() < rows * cols:
            flat = self._buffers[slot] = torch.empty(rows * cols, dtype=like.dtype, device=like.device)
        return flat[: rows * cols].view(rows, cols)


def _distances(
    a_rows: torch.Tensor,
    b_rows: torch.Tensor,
    i: slice,
    j: slice,
    worker: _Worker,
    uni: _Uniformity | None = None,
) -> torch.Tensor:
    """The distance block D_ij (with scaled rows: sqrt(s_i s_j) D_ij), in the worker's buffer (valid until
    its next block); with ``uni``, first adds the block's uniformity sum to the worker's parts."""
    out = worker.buffer("d", i.stop - i.start, j.stop - j.start, a_rows)
    d = torch.mm(a_rows[i], b_rows[j].T, out=out)
    d.clamp_(min=0.0)
    if uni is not None:
        worker.parts.append(uni.block_sum(d, i, j, worker.buffer("e", d.shape[0], d.shape[1], d)))
    d.sqrt_()
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

    def __init__(
        self,
        codes: torch.Tensor,
        k: int,
        counts: torch.Tensor,
        blocks: list[slice],
        dtype,
        weights: torch.Tensor | None = None,
    ) -> None:
        self.codes, self.k = codes, k
        self.weights = weights  # per point: sums become weighted sums (the scaled blocks of the uniformity)
        self.onehot = None
        self.spans: dict[int, tuple[int, list[tuple[int, int]]]] = {}
        if not host_slices(codes.device):
            if k <= ONE_HOT_MAX_CLUSTERS:
                self.onehot = torch.zeros(codes.shape[0], k, dtype=dtype, device=codes.device)
                self.onehot.scatter_(1, codes[:, None], 1.0)
                if weights is not None:
                    self.onehot *= weights[:, None]
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
            if self.weights is None:
                part = torch.stack([d[:, lo:hi].sum(dim=1) for lo, hi in cuts], dim=1)
            else:
                w = self.weights[cols]
                part = torch.stack([d[:, lo:hi] @ w[lo:hi] for lo, hi in cuts], dim=1)
            out[:, first : first + len(cuts)] += part
        elif self.onehot is not None:
            out += torch.mm(d, self.onehot[cols]).to(torch.float64)
        else:
            weighted = d if self.weights is None else d * self.weights[cols]
            out.index_add_(1, self.codes[cols], weighted.to(torch.float64))

    def add_cols(self, out: torch.Tensor, d: torch.Tensor, rows: slice) -> None:
        """out (cols, k) += per-cluster sums over the rows of d (the transposed block's contribution)."""
        if rows.start in self.spans:
            first, cuts = self.spans[rows.start]
            if self.weights is None:
                part = torch.stack([d[lo:hi].sum(dim=0) for lo, hi in cuts], dim=1)
            else:
                w = self.weights[rows]
                part = torch.stack([w[lo:hi] @ d[lo:hi] for lo, hi in cuts], dim=1)
            out[:, first : first + len(cuts)] += part
        else:
            self.add_rows(out, d.T, rows)


def _sums_symmetric(
    a_rows, b_rows, blocks: list[slice], acc: _Accumulator, uni: _Uniformity | None = None
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """(n, k) table from the blocks J >= I only, shared out to the workers (one table each, summed); and
    the blocks' uniformity sums (empty without ``uni``)."""
    pairs = [(i, j) for bi, i in enumerate(blocks) for j in blocks[bi:]]

    def new_state() -> tuple[torch.Tensor, _Worker]:
        return torch.zeros(a_rows.shape[0], acc.k, dtype=torch.float64, device=a_rows.device), _Worker()

    def step(state: tuple[torch.Tensor, _Worker], pair: tuple[slice, slice]) -> None:
        sums, worker = state
        i, j = pair
        d = _distances(a_rows, b_rows, i, j, worker, uni)
        acc.add_rows(sums[i], d, j)
        if j != i:
            acc.add_cols(sums[j], d, i)

    states = run_tasks(pairs, new_state, step, a_rows.device)
    total = states[0][0]
    for table, _ in states[1:]:
        total += table
    return total, [p for _, worker in states for p in worker.parts]


def _values_streamed(
    a_rows, b_rows, blocks, acc, codes, counts, uni: _Uniformity | None = None
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Row blocks one at a time over all column blocks (memory: one block and one (rows, k) table each);
    the uniformity sums come from the blocks J >= I only."""
    values: dict[int, torch.Tensor] = {}

    def step(state: tuple[dict[int, torch.Tensor], _Worker], i: slice) -> None:
        out, worker = state
        part = torch.zeros(i.stop - i.start, acc.k, dtype=torch.float64, device=a_rows.device)
        for j in blocks:
            upper = uni if j.start >= i.start else None
            acc.add_rows(part, _distances(a_rows, b_rows, i, j, worker, upper), j)
        if uni is not None:
            part *= uni.root_norms64[i, None]
        out[i.start] = _coefficients(part, codes[i], counts)

    states = run_tasks(blocks, lambda: (values, _Worker()), step, a_rows.device)
    return torch.cat([values[i.start] for i in blocks]), [p for _, worker in states for p in worker.parts]
