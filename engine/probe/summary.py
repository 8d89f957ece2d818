"""A probe run's summary: start and end values, and how IsoScore and the silhouette moved together."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.probe.config import ProbeConfig


def summarize(rows: list[dict[str, Any]], config: ProbeConfig) -> dict[str, Any]:
    """Start/end values and the correlation of the IsoScore and silhouette series (the paper's Fig. 3)."""
    from engine.metrics import series_correlation

    iso = np.array([r["isoscore"] for r in rows if r.get("isoscore") is not None], dtype=float)
    sil = np.array([r["silhouette"] for r in rows if r.get("silhouette") is not None], dtype=float)
    out: dict[str, Any] = {"pearson_r": None, "spearman_rho": None}
    if len(iso) >= 3 and len(iso) == len(sil):
        out["pearson_r"], out["spearman_rho"] = series_correlation(iso, sil)
    if len(iso):
        out.update(isoscore_start=iso[0], isoscore_end=iso[-1], silhouette_start=sil[0], silhouette_end=sil[-1])
    return out
