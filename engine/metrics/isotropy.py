"""The isotropy family: covariance spectrum, RankMe (the effective rank), average cosine and partition
isotropy, computed exactly (float64) on numpy arrays or torch tensors, CPU or CUDA.

For points X (N samples x d dims), rows x_i:
- ``spectrum``: eigenvalues lambda_1 >= ... >= lambda_d of the sample covariance
  C = sum_i (x_i - mean)(x_i - mean)^T / (N - 1) (``np.cov(X.T)``); for N <= d the trailing d - N + 1 are
  zero (rank), tiny negative rounding is clipped to 0. SimCSE (Gao et al. 2021, Sec. 5) reads the flattening
  of this spectrum as the contrastive objective's effect; IsoScore = (PR - 1)/(d - 1) with the
  participation ratio PR = (sum lambda)^2 / sum lambda^2 (Rudman et al. 2022).
- ``rankme``: RankMe, also called the effective rank (Garrido et al. 2023, "RankMe: Assessing the downstream
  performance of pretrained self-supervised representations by their rank", ICML; after Roy & Vetterli 2007):
  sigma = the min(N, d) singular values of X *as given* (not centred), p_k = sigma_k / sum sigma + 1e-7,
  RankMe = exp(-sum_k p_k log p_k). Singular values, not their squares. Range about [1, min(N, d)].
  All-zero X: NaN (no direction at all).
- ``average_cosine``: mean of cos(x_i, x_j) over all ordered pairs i != j, in O(N d) from the sum of the unit
  vectors u_i = x_i / |x_i|:  (|sum_i u_i|^2 - N) / (N (N - 1))  (Ethayarajh 2019 uses the same mean to
  measure anisotropy). Zero rows: their cosine with every point is taken as 0 (the convention of
  ``torch.nn.functional.cosine_similarity``), i.e. (|sum u|^2 - m) / (N (N - 1)) with m the number of
  non-zero rows; they still count in N.
- ``partition_isotropy``: Mu & Viswanath 2018 ("All-but-the-Top: Simple and Effective Postprocessing for
  Word Representations", ICLR, Sec. 2): I = min_c Z(c) / max_c Z(c), Z(c) = sum_i exp(c^T x_i), with c
  running over the unit eigenvectors of X^T X (X not centred) -- the columns of its eigenvector matrix, each
  with both signs +c and -c (an eigenvector is defined only up to sign, so both are in the set; this also
  makes I independent of the solver's sign convention, CPU and CUDA alike). log Z is computed with a
  shifted log-sum-exp (float64 projections and shifts, float32 ``exp2`` of the shifted values: ~1e-6
  relative per term), so it never overflows, and I = exp(min log Z - max log Z) in [0, 1] (1 =
  isotropic). The public reference (IsoScore repository, ``existing_scores.py``, its issue #3) iterates
  eigenvector rows and multiplies elementwise; that is not reproduced here. For N < d the d - rank null
  directions of X^T X have c^T x_i = 0, Z = N. Repeated eigenvalues make the eigenvectors (hence I)
  depend on the basis chosen inside the eigenspace, as in the paper.

How: one float64 pass gives the mean and the centred covariance (chunk products in float64, summed by the
CPU workers, ``engine.metrics._parallel``); the raw Gram matrix is X^T X = (N - 1) C + N mean mean^T (a sum
of PSD terms: no cancellation). Eigenvalues come from ``eigvalsh``/``eigh`` on one thread. Singular values
are square roots of the Gram eigenvalues, except those below 1e-8 of the largest eigenvalue (where the
square root of a rounded eigenvalue is only accurate to sqrt(eps) sigma_max), which are recomputed as
|X v| from X: SVD accuracy for rank-deficient X at Gram cost. The partition function needs the N x d
projections X V (float64, row chunks, streamed into a per-column log-sum-exp).
When N < d the N x N Gram matrices (X X^T and the centred one) replace the d x d ones: same non-zero
eigenvalues, and the projections onto the eigenvectors are sigma_k u_k without an N x d x d product.
``isotropy_profile`` computes all of them (and IsoScore, and with labels the class alignment) from one
covariance pass.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from engine.core import measures
from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix, encode_labels, require_finite
from engine.metrics._parallel import one_lapack_thread, row_chunks, run_tasks
from engine.metrics.align_uniform import class_alignment_tensor, class_unit_sums
from engine.metrics.isoscore import isoscore_of_covariance, mean_and_covariance, warn_if_few_samples

#: RankMe's epsilon (Garrido et al. 2023, as in their code).
RANKME_EPS = 1e-7


def spectrum(X: ArrayLike) -> np.ndarray:
    """Eigenvalues of the sample covariance of ``X`` (N, d), float64, descending, length d (``np.cov``)."""
    moments = _Moments(_checked(X, "spectrum"))
    return moments.spectrum().cpu().numpy()


def rankme(X: ArrayLike) -> float:
    """RankMe of ``X`` (N, d): exp(entropy of sigma / sum sigma + 1e-7), sigma the singular values of X."""
    moments = _Moments(_checked(X, "rankme"))
    return _rankme(moments.singular_values())


def average_cosine(X: ArrayLike) -> float:
    """Mean cosine similarity over all pairs i != j of rows of ``X`` (zero rows: cosine 0), in O(N d)."""
    x = _checked(X, "average_cosine")
    sums, nonzero, _ = class_unit_sums(x, None, 1)
    return _average_cosine(sums.sum(dim=0), float(nonzero.sum().item()), x.shape[0])


def partition_isotropy(X: ArrayLike) -> float:
    """Mu & Viswanath's I(X) = min_c Z(c) / max_c Z(c) over the eigenvectors +-c of X^T X, via log-sum-exp."""
    moments = _Moments(_checked(X, "partition_isotropy"))
    return moments.partition_isotropy()


def isotropy_profile(X: ArrayLike, labels: ArrayLike | None = None, partition: bool = True) -> dict[str, Any]:
    """All of the isotropy family from one covariance pass: a dict keyed by the measures' names
    (:mod:`engine.core.measures`) with "isoscore", "spectrum" (float64 numpy array, descending), and
    :data:`engine.core.measures.GEOMETRY`: "rankme", "average_cosine", "partition_isotropy" (the last left out
    when ``partition`` is False: it alone needs the N x d x d float64 projections and an eigenvector solve,
    about as much work as all the rest together), and, when ``labels`` are given, "class_alignment"
    (``engine.metrics.align_uniform.class_alignment``). Values equal the single functions'. IsoScore comes
    from the same float64-product covariance, so it equals ``isoscore`` to rounding: ~1e-12 for float64
    input, ~1e-7 for float32 input (where ``isoscore`` itself multiplies in float32). Warns
    ``FewSamplesWarning`` for N <= d like ``isoscore``.

    For the probe: it replaces the ``isoscore`` call (same covariance pass), and can run on the side thread
    as ``isoscore`` does today."""
    x = _checked(X, "isotropy_profile")
    n, d = x.shape
    codes, k = (None, 1) if labels is None else encode_labels(labels, n, x.device)
    warn_if_few_samples(n, d)
    if codes is not None and not 0 < k < n:
        raise ConfigError("class_alignment needs a class with at least 2 items (same-label pairs)")
    found = profile_tensors(x, codes, k, partition=partition)
    return {
        name: value.cpu().numpy() if name == measures.SPECTRUM else float(value.item())
        for name, value in found.items()
    }


def profile_tensors(
    x: torch.Tensor,
    codes: torch.Tensor | None,
    k: int,
    counts: torch.Tensor | None = None,
    partition: bool = True,
) -> dict[str, torch.Tensor]:
    """``isotropy_profile`` of the float tensor ``x`` with clusters already encoded (``codes`` 0..k-1, or
    None: no class alignment; ``counts`` their float64 sizes when known), as tensors on x's device: 0-dim
    float64 values and the 1-D "spectrum". The very same computation; it reads from the device only where a
    step needs it (the finiteness of the covariance, the eigensolvers' own checks, the choice of a singular
    value refinement and of a log-sum-exp shift), not for the values. No warning here."""
    n, _ = x.shape
    moments = _Moments(x)
    if partition:
        moments._raw_eigh()  # one eigh serves RankMe and the partition function
    eig = moments.spectrum()
    sums, nonzero, counts = class_unit_sums(x, codes, k, counts)
    out: dict[str, torch.Tensor] = {
        measures.ISOSCORE: isoscore_of_covariance(moments.centred_gram, x.shape[1]),
        measures.SPECTRUM: eig,
        measures.RANKME: _rankme_tensor(moments.singular_values()),
        measures.AVERAGE_COSINE: average_cosine_tensor(sums.sum(dim=0), nonzero.sum(), n),
    }
    if partition:
        out[measures.PARTITION_ISOTROPY] = moments.partition_isotropy_tensor()
    if codes is not None:
        out[measures.CLASS_ALIGNMENT] = class_alignment_tensor(sums, nonzero, counts)
    return out


# ------------------------------------------------------------------------------------------- helpers


def _checked(X: ArrayLike, what: str) -> torch.Tensor:
    x = as_matrix(X, check_finite=False)  # NaN/inf surface in the float64 moments: checked there
    n, d = x.shape
    if n < 2 or d < 1:
        raise ConfigError(f"{what} needs at least 2 samples and 1 dimension; got X of shape ({n}, {d})")
    return x


class _Moments:
    """Second moments of X in float64, on the smaller side: the d x d covariance C and Gram X^T X when
    N >= d ("features"), else the N x N Gram matrices of the centred and of the raw rows ("samples")."""

    def __init__(self, x: torch.Tensor) -> None:
        self.x = x
        n, d = x.shape
        self.features = n >= d
        if self.features:
            mean, cov = mean_and_covariance(x, products=torch.float64)
            self.mean = mean
            self.centred_gram = cov  # C (already / (N - 1))
            self.raw_gram = (n - 1) * cov + n * torch.outer(mean, mean)  # X^T X, PSD + PSD
        else:
            x64 = x.to(torch.float64)
            xc = x64 - x64.mean(dim=0, keepdim=True)
            self.centred_gram = (xc @ xc.T) / (n - 1)  # same non-zero eigenvalues as C
            self.raw_gram = x64 @ x64.T  # same non-zero eigenvalues as X^T X
            if not bool(torch.isfinite(self.raw_gram).all()):
                require_finite(x)
                raise ConfigError("X values are too large: their Gram matrix overflows float64")
        self._raw_eig: tuple[torch.Tensor, torch.Tensor] | None = None

    def spectrum(self) -> torch.Tensor:
        """Covariance eigenvalues, descending, clipped at 0, padded with zeros to length d."""
        with one_lapack_thread(self.x.device):
            eig = torch.linalg.eigvalsh(_symmetric(self.centred_gram))
        eig = eig.flip(0).clamp_min(0.0)
        d = self.x.shape[1]
        if eig.shape[0] < d:
            eig = torch.cat([eig, eig.new_zeros(d - eig.shape[0])])
        return eig

    def _raw_eigh(self) -> tuple[torch.Tensor, torch.Tensor]:
        if self._raw_eig is None:
            with one_lapack_thread(self.x.device):
                self._raw_eig = torch.linalg.eigh(_symmetric(self.raw_gram))
        return self._raw_eig

    def _singular_ascending(self) -> torch.Tensor:
        """The min(N, d) singular values of X, ascending (the order of ``_raw_eigh``): square roots of the
        raw Gram's eigenvalues. Below ``REFINE`` * the largest eigenvalue, sqrt(lambda) is only accurate
        to ~sqrt(eps) sigma_max (rounding of lambda ~ eps lambda_max), so those sigma_k are recomputed as
        |X v_k| (features) or |X^T u_k| (samples) from X in float64: accurate to ~eps sigma_max, as an SVD."""
        if self._raw_eig is not None:
            values = self._raw_eig[0]
        else:
            with one_lapack_thread(self.x.device):
                values = torch.linalg.eigvalsh(_symmetric(self.raw_gram))
        small = values <= REFINE * values.max().clamp_min(0.0)
        if not bool(small.any()):
            return values.clamp_min(0.0).sqrt()
        values, vectors = self._raw_eigh()  # eigenvectors only when some sigma needs recomputing
        small = torch.nonzero(values <= REFINE * values.max().clamp_min(0.0)).flatten()
        sigma = values.clamp_min(0.0).sqrt()
        sigma[small] = _column_norms(self.x, vectors[:, small], transposed=not self.features)
        return sigma

    def singular_values(self) -> torch.Tensor:
        """The min(N, d) singular values of X, descending."""
        return self._singular_ascending().flip(0)

    def partition_isotropy(self) -> float:
        """exp(min log Z - max log Z) over the eigenvectors +-c of X^T X."""
        return float(self.partition_isotropy_tensor().item())

    def partition_isotropy_tensor(self) -> torch.Tensor:
        """``partition_isotropy`` as a 0-dim float64 tensor on X's device."""
        n, d = self.x.shape
        _, vectors = self._raw_eigh()
        if self.features:
            log_z = _log_partition(self.x, vectors, self.mean)
        else:  # projections of x_i onto c_k = X^T u_k / sigma_k are sigma_k u_ik
            proj = vectors * self._singular_ascending()
            log_z = torch.cat([torch.logsumexp(proj, dim=0), torch.logsumexp(-proj, dim=0)])
            null = torch.full((1,), math.log(n), dtype=torch.float64, device=log_z.device)
            log_z = torch.cat([log_z, null])  # the d - N null directions: c^T x_i = 0, Z = N
        return torch.exp(log_z.min() - log_z.max())


#: Eigenvalues of the raw Gram matrix below this share of the largest get their singular value
#: recomputed from X (``_Moments._singular_ascending``).
REFINE = 1e-8


def _column_norms(x: torch.Tensor, vectors: torch.Tensor, transposed: bool) -> torch.Tensor:
    """|X v| for each column v of ``vectors`` (or |X^T v| when ``transposed``), float64, over row chunks."""
    if transposed:
        return torch.linalg.vector_norm(x.to(torch.float64).T @ vectors, dim=0)

    def add(total: list[torch.Tensor], rows: slice) -> None:
        proj = x[rows].to(torch.float64) @ vectors
        total.append((proj * proj).sum(dim=0))

    parts = [p for worker in run_tasks(row_chunks(x.shape[0], x.device), list, add, x.device) for p in worker]
    return torch.stack(parts).sum(dim=0).sqrt()


def _symmetric(a: torch.Tensor) -> torch.Tensor:
    return (a + a.T) * 0.5


def _log_partition(x: torch.Tensor, vectors: torch.Tensor, mean: torch.Tensor) -> torch.Tensor:
    """log Z(+c) and log Z(-c) for every column c of ``vectors`` (2d values), by log-sum-exp over row
    chunks of the projections.

    The projections x_i . c are float64, in units of log2 (the eigenvectors are scaled by 1/ln 2, so that
    ``exp2`` serves: 3x faster than ``exp`` in float32, 6x faster than float64 ``exp``). Every exponent is
    shifted in float64 before it is rounded to float32, so each term that matters carries a relative error
    <= 16 * 2^-24 ~ 1e-6, and so does Z (far below the 1e-4 the tests ask). Shift: mean . c, when the
    chunk's centred projections (x_i - mean) . c all lie within +-16 (log2 units; the usual case): then
    2^(+p) and 2^(-p) = 1/2^(+p) are both within float32 (one ``exp2`` and one reciprocal give +c and -c).
    Otherwise each column is shifted by its own maximum (+c) and minimum (-c): exponents <= 0, no overflow,
    whatever the scale.
    Chunk sums (<= a few thousand terms) are float32, chunks are combined by a float64 log-sum-exp."""
    scaled = vectors / math.log(2.0)
    centre = mean @ scaled  # (d,), log2 units

    def project(parts: list[torch.Tensor], rows: slice) -> None:
        proj = x[rows].to(torch.float64) @ scaled
        shifted = torch.empty(proj.shape, dtype=torch.float32, device=proj.device)
        low, high = torch.aminmax(proj - centre) if proj.numel() else (centre, centre)
        if bool(low >= -FAST_RANGE) and bool(high <= FAST_RANGE):
            torch.sub(proj, centre, out=shifted)
            upper = shifted.exp2_().sum(dim=0).to(torch.float64).log2_() + centre
            lower = shifted.reciprocal_().sum(dim=0).to(torch.float64).log2_() - centre
        else:
            top, bottom = proj.amax(dim=0), proj.amin(dim=0)
            torch.sub(proj, top, out=shifted)
            upper = shifted.exp2_().sum(dim=0).to(torch.float64).log2_() + top
            torch.sub(bottom, proj, out=shifted)
            lower = shifted.exp2_().sum(dim=0).to(torch.float64).log2_() - bottom
        parts.append(torch.cat([upper, lower]))

    parts = [
        p for worker in run_tasks(row_chunks(x.shape[0], x.device), list, project, x.device) for p in worker
    ]
    log2_z = torch.stack(parts)  # chunks x 2d: log2 of each chunk's partial Z
    top = log2_z.amax(dim=0)
    return (top + torch.exp2(log2_z - top).sum(dim=0).log2()) * math.log(2.0)  # natural log Z


#: Centred projections (log2 units) within +-FAST_RANGE take the one-exp2 path of ``_log_partition``.
FAST_RANGE = 16.0


def _rankme(sigma: torch.Tensor) -> float:
    return float(_rankme_tensor(sigma).item())


def _rankme_tensor(sigma: torch.Tensor) -> torch.Tensor:
    """RankMe exp(-sum p log p), p = sigma / sum sigma + 1e-7 (Garrido et al. 2023); NaN when sum sigma is
    0, as a 0-dim tensor (no host sync)."""
    total = sigma.sum()
    p = sigma / total + RANKME_EPS
    value = torch.exp(-(p * torch.log(p)).sum())
    return torch.where(total > 0, value, math.nan)


def _average_cosine(total: torch.Tensor, nonzero: float, n: int) -> float:
    return float(average_cosine_tensor(total, nonzero, n).item())


def average_cosine_tensor(total: torch.Tensor, nonzero: float | torch.Tensor, n: int) -> torch.Tensor:
    """The average cosine (|sum u|^2 - m) / (N (N - 1)) (module docstring) from the sum ``total`` of the
    unit rows, ``nonzero`` = m rows not zero, N = ``n`` rows; 0-dim."""
    return (total @ total - nonzero) / (n * (n - 1))
