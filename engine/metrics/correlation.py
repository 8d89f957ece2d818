"""Correlations: STS evaluation (Spearman of cosine vs gold) and the correlation of two metric series.

- Pearson r = sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2 sum (y - mean y)^2)
  (``scipy.stats.pearsonr``).
- Spearman rho = Pearson r of the ranks, ties given their average rank (``scipy.stats.spearmanr``).
- STS: rho(cos(a_i, b_i), gold_i), as SentEval / SimCSE report it (Gao et al. 2021, Sec. 5; x 100 there).
- Series: Mickus et al. 2024 report Pearson and Spearman of IsoScore against silhouette over training.
A constant input has no correlation: NaN (scipy warns and returns NaN too).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.stats import rankdata

from engine.core.errors import ConfigError
from engine.metrics._inputs import ArrayLike, as_matrix, as_vector


def sts_spearman(a: ArrayLike, b: ArrayLike, gold: ArrayLike) -> float:
    """Spearman rho between the row-wise cosine similarities cos(a_i, b_i) and the gold scores."""
    left, right = as_matrix(a, "a"), as_matrix(b, "b")
    if left.shape != right.shape:
        raise ConfigError(
            f"sts_spearman needs a and b of the same shape; got {tuple(left.shape)} and {tuple(right.shape)}"
        )
    scores = as_vector(gold, "gold")
    if scores.shape[0] != left.shape[0]:
        raise ConfigError(
            f"sts_spearman needs one gold score per pair; got {scores.shape[0]} for {left.shape[0]} pairs"
        )
    if left.shape[0] < 2:
        raise ConfigError(f"sts_spearman needs at least 2 pairs; got {left.shape[0]}")
    cos = torch.nn.functional.cosine_similarity(
        left.to(torch.float64), right.to(device=left.device, dtype=torch.float64), dim=1
    )
    return spearman(cos, scores)


def series_correlation(x: ArrayLike, y: ArrayLike) -> tuple[float, float]:
    """(Pearson r, Spearman rho) of two equally long series, skipping pairs where either is NaN/None.

    Fewer than 2 complete pairs, or a constant series, give NaN.
    """
    u, v = as_vector(x, "x", allow_nan=True), as_vector(y, "y", allow_nan=True)
    if u.shape[0] != v.shape[0]:
        raise ConfigError(
            f"series_correlation needs series of equal length; got {u.shape[0]} and {v.shape[0]}"
        )
    v = v.to(u.device)
    keep = torch.isfinite(u) & torch.isfinite(v)
    u, v = u[keep], v[keep]
    if u.shape[0] < 2:
        return math.nan, math.nan
    return pearson(u, v), spearman(u, v)


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson correlation coefficient in float64 (NaN for a constant input)."""
    u = as_vector(x, "x").cpu().numpy()
    v = as_vector(y, "y").cpu().numpy()
    if np.ptp(u) == 0 or np.ptp(v) == 0:  # exactly constant: the mean's rounding must not fake a spread
        return math.nan
    du, dv = u - u.mean(), v - v.mean()  # not all zero: min != max, both cannot equal the mean
    du, dv = (
        du / np.abs(du).max(),
        dv / np.abs(dv).max(),
    )  # scaled to max |.| = 1 first: tiny or huge values neither under- nor overflow
    nu, nv = np.linalg.norm(du), np.linalg.norm(dv)
    r = float(np.dot(du / nu, dv / nv))
    return max(-1.0, min(1.0, r))


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman rank correlation (average ranks for ties), as ``scipy.stats.spearmanr``."""
    u = as_vector(x, "x").cpu().numpy()
    v = as_vector(y, "y").cpu().numpy()
    return pearson(rankdata(u), rankdata(v))
