"""Facts about a run that figures state: the data its measures come from, a diverging loss, IsoScore*."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from engine import experiments
from engine.charts.figures import label


def measured_on(kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> str:
    """The data a run's measures come from, in words, as its experiment says
    (:attr:`engine.core.declaration.Experiment.measured_on`; e.g. SimCSE: its evaluation pairs; the probe: its
    data set); the kind when the experiment does not say."""
    return experiments.measured_on(kind, config, summary) or kind


def measured_of(
    kind: str, metric: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None
) -> str | None:
    """The data ``metric`` of a ``kind`` run was measured on, in words; None for one not measured on a data
    set (the training loss)."""
    return experiments.measured_on(kind, config, summary, metric)


def divergence(frame: pd.DataFrame, column: str = "loss", factor: float = 10.0) -> str | None:
    """Why a run's ``column`` (the loss) diverges, in words, or None: it stopped being a number (NaN and
    infinities are written as empty cells, so an empty cell after the first value means one), or it grew to
    ``factor`` times its first value (and by at least 1)."""
    if column not in frame or "step" not in frame or frame.empty:
        return None
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    steps = pd.to_numeric(frame["step"], errors="coerce").to_numpy(dtype=float)
    logged = np.flatnonzero(np.isfinite(values))
    if not len(logged):
        return None
    start = int(logged[0])
    first, rest = values[start], values[start + 1 :]
    name = label(column).lower()
    bad = np.flatnonzero(~np.isfinite(rest))
    if len(bad):
        return (
            f"the {name} is no longer a number (NaN or infinite) from step {int(steps[start + 1 + bad[0]])}"
        )
    if not len(rest):
        return None
    worst = int(np.argmax(rest))
    if rest[worst] >= factor * abs(first) and rest[worst] - first >= 1.0:
        return (
            f"the {name} grew from {first:.3g} at step {int(steps[start])} to {rest[worst]:.3g} at step "
            f"{int(steps[start + 1 + worst])}"
        )
    return None


def isoscore_star_series(snapshots: Mapping[int, np.ndarray], zeta: float) -> pd.DataFrame:
    """IsoScore* (:func:`engine.metrics.isoscore_star`) of each snapshot, by step (columns ``step``,
    ``isoscore_star``): a series to draw beside IsoScore where the run has fewer items than dimensions. Each
    snapshot is first scaled to unit mean variance per dimension, so that the shrinkage target, the identity,
    is the isotropic covariance of the same total variance (IsoScore itself does not change with scale)."""
    import warnings

    from engine.metrics import FewSamplesWarning, isoscore_star

    rows = []
    for step in sorted(snapshots):
        points = np.asarray(snapshots[step], dtype=np.float64)
        spread = float(np.sqrt(points.var(axis=0, ddof=1).mean())) if len(points) > 1 else 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FewSamplesWarning)
            value = isoscore_star(points / spread, zeta) if spread > 0 else float("nan")
        rows.append({"step": int(step), "isoscore_star": float(value)})
    return pd.DataFrame(rows, columns=["step", "isoscore_star"])
