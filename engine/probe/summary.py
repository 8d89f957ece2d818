"""A probe run's summary: start and end values of every measure, and how each moved with the silhouette.

Keys, for each measure ``m`` of :data:`engine.probe.measure.COLUMNS` logged at least once (IsoScore, the
silhouette, the isotropy family of :data:`engine.core.measures.GEOMETRY`, uniformity, class alignment):

- ``m_start``, ``m_end``: its first and last logged value;
- ``m_pearson_r``, ``m_spearman_rho`` (every measure but the silhouette): Pearson r and Spearman rho of its
  series against the silhouette's, over the logged steps where both have a value (measures of geometry
  steps only have fewer); None with fewer than 3 such steps, NaN (written as null) for a constant series.

``pearson_r`` and ``spearman_rho`` are IsoScore's against the silhouette (the paper's Fig. 3), as before.
"""

from __future__ import annotations

import math
from typing import Any

from engine.probe.config import ProbeConfig
from engine.probe.measure import COLUMNS

#: Fewer steps with both values than this give no correlation (None).
MIN_STEPS = 3


def summarize(rows: list[dict[str, Any]], config: ProbeConfig) -> dict[str, Any]:
    """Start/end values of every logged measure and its r and rho against the silhouette over the run."""
    from engine.metrics import series_correlation

    out: dict[str, Any] = {"pearson_r": None, "spearman_rho": None}
    silhouette = [_number(row.get("silhouette")) for row in rows]
    for name in COLUMNS:
        series = [_number(row.get(name)) for row in rows]
        logged = [value for value in series if value is not None]
        if not logged:
            continue
        out[f"{name}_start"], out[f"{name}_end"] = logged[0], logged[-1]
        if name == "silhouette":
            continue
        both = sum(1 for a, b in zip(series, silhouette, strict=True) if a is not None and b is not None)
        r = rho = None
        if both >= MIN_STEPS:
            r, rho = series_correlation(series, silhouette)
        out[f"{name}_pearson_r"], out[f"{name}_spearman_rho"] = r, rho
    out["pearson_r"], out["spearman_rho"] = out.get("isoscore_pearson_r"), out.get("isoscore_spearman_rho")
    return out


def _number(value: Any) -> float | None:
    """A logged value as a float; None when not logged (empty cell, None, NaN)."""
    if value is None or isinstance(value, str):
        return None
    value = float(value)
    return value if math.isfinite(value) else None
