"""Runs that coincide: two curves with the same values at the same steps are drawn so that both show.

"Does JEPA collapse?" has two runs whose curves are the same to every digit shown (stop-gradient only and
none of the three: with no predictor, the symmetrised loss with a stop-gradient has half the gradient of the
loss without it, and AdamW ignores that scale; tests/jepa/test_coinciding_runs.py). Drawn as usual, the
later curve hides the earlier one, and a class sees three runs where four trained. :func:`show_coinciding`
draws each curve that coincides with an earlier one dashed (its own line pattern, else long dashes) with
its markers, so that the curve under it shows between them; its name and legend entry stay the run's (a
longer one took the projector's legend a row more).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: two curves coincide when every value is within this share of the larger of the two (and the steps agree)
SAME_CURVE = 1e-3
#: the line pattern of a curve drawn on another: long dashes, so that the curve under it shows between them
ON_ANOTHER = "dash"


def _values(trace: dict[str, Any], axis: str) -> np.ndarray | None:
    try:
        return np.asarray(trace.get(axis), dtype=float)
    except (TypeError, ValueError):
        return None


def same_curve(a: dict[str, Any], b: dict[str, Any], share: float = SAME_CURVE) -> bool:
    """Whether traces ``a`` and ``b`` have the same steps and values within ``share`` of the larger of each
    pair of values (NaN where the other has NaN; at least two points)."""
    xa, ya, xb, yb = _values(a, "x"), _values(a, "y"), _values(b, "x"), _values(b, "y")
    if any(v is None for v in (xa, xb, ya, yb)) or xa.size < 2 or xa.shape != xb.shape:
        return False
    if ya.shape != xa.shape or yb.shape != xb.shape:
        return False
    if not np.array_equal(xa, xb) or not np.array_equal(np.isnan(ya), np.isnan(yb)):
        return False
    both = ~np.isnan(ya)
    scale = np.maximum(np.abs(ya[both]), np.abs(yb[both]))
    return bool(both.any() and np.all(np.abs(ya[both] - yb[both]) <= share * scale))


def show_coinciding(traces: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``traces`` with each legend trace that lies on an earlier one drawn dashed with markers; the others
    unchanged (a hidden raw trace is never compared)."""
    shown: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for trace in traces:
        if trace.get("showlegend") is False:
            out.append(trace)
            continue
        under = next((earlier for earlier in shown if same_curve(earlier, trace)), None)
        if under is not None:
            line = trace.get("line", {})
            trace = {
                **trace,
                "mode": "lines+markers",
                "line": {
                    **line,
                    "dash": line.get("dash") if line.get("dash") not in (None, "solid") else ON_ANOTHER,
                },
                "marker": {**trace.get("marker", {}), "size": 9},
            }
        shown.append(trace)
        out.append(trace)
    return out
