"""Facts about a run that figures state: the data its measures come from, a diverging loss, IsoScore*."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from engine import paths
from engine.charts.figures import EVAL_SETS, label


def measured_on(kind: str, config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> str:
    """The data a run's measures come from, in words. SimCSE: its evaluation pairs, from the run's summary
    (``eval_set``, else ``train_and_eval``) or, before the summary exists, as the run resolves them (the
    config's ``eval``, else STS-B dev when the data folder holds ``stsb/``, else the built-in demo pairs).
    The probe: its data set (and the demo's labels)."""
    summary = summary or {}
    if kind == "simcse":
        name = summary.get("eval_set")
        if (
            not name
            and isinstance(summary.get("train_and_eval"), list | tuple)
            and len(summary["train_and_eval"]) > 1
        ):
            name = summary["train_and_eval"][1]
        if not name:
            name = config.get("eval")
        if not name:
            folder = paths.data_dir(config.get("data_dir"))
            name = "stsb" if folder is not None and (folder / "stsb").is_dir() else "demo-pairs"
        head, _, rest = str(name).strip().partition(" ")  # "stsb-dev (250 of 1,500 pairs)"
        return " ".join(part for part in (EVAL_SETS.get(head.lower(), head), rest) if part)
    data = str(config.get("data") or "")
    if data == "demo":
        return "the demo sentiment labels" if config.get("label_col") == "sentiment" else "the demo topics"
    if data == "snli":
        return f"SNLI {config.get('split') or 'validation'}"
    return data.replace("\\", "/").rsplit("/", 1)[-1] or kind


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
