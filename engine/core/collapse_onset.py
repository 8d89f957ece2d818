"""Collapse, seen coming: the step at which a run's RankMe first falls below a declared fraction of its start.

RankMe (:data:`engine.core.measures.RANKME`) counts the directions the embeddings use; a collapsing encoder
loses them step after step (the "Does JEPA collapse?" preset: 262 → 21 in 60 steps without EMA, predictor and
stop-gradient). The onset is the first logged step whose value is below ``fraction`` × the first finite
logged value (:data:`engine.core.measures.COLLAPSE_ONSET`); the charts mark it (a vertical line in the chart
description), the page says collapse is beginning, and a lesson claim (``warns``) checks that it fires on the
collapse runs and not on the JEPA run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from engine.core.measures import COLLAPSE_ONSET


def onset_step(points: Iterable[tuple[float, float]], fraction: float = COLLAPSE_ONSET) -> float | None:
    """The first step of ``points`` ((step, value) pairs in step order) whose value is below ``fraction`` ×
    the first finite value; None when none is (or the start is not positive: no fraction of it to fall
    below). Non-finite values are skipped."""
    start = None
    for step, raw in points:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            continue
        if not math.isfinite(value):
            continue
        if start is None:
            start = value
            if start <= 0:
                return None
            continue
        if value < fraction * start:
            return step
    return None
