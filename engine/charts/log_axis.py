"""Log y axes with readable ticks: 1, 2, 5 × 10^k labelled as whole numbers ("0.2", "50", "2×10⁻⁵"), for
the curves of :mod:`engine.charts.figures` and the spectrum of :mod:`engine.charts.geometry`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def positive(series: list[Any]) -> np.ndarray:
    """The finite, positive values of the y series (what a log axis shows)."""
    values = [np.asarray(y, dtype=float) for y in series]
    found = np.concatenate(values) if values else np.zeros(0)
    return found[np.isfinite(found) & (found > 0)]


def log_ticks(low: float, high: float) -> list[tuple[float, str]]:
    """Tick values and labels of a log axis from ``low`` to ``high`` (> 0): 1, 2, 5 × 10^k over up to about
    three decades (1, 3 × 10^k up to six, else powers of ten), each label the whole number ("0.2", "50",
    "2×10⁻⁵"), never a bare mantissa ("2") as Plotly's own minor labels are."""
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high <= 0:
        return []
    low, high = min(low, high), max(low, high)
    decades = math.log10(high) - math.log10(low)
    mantissas = (1, 2, 5) if decades < 3.2 else (1, 3) if decades < 6 else (1,)
    ticks = []
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in mantissas:
            value = mantissa * 10.0**power
            if low / 1.0001 <= value <= high * 1.0001:
                ticks.append((value, tick_text(mantissa, power)))
    if len(ticks) < 2:  # less than one step of the ladder: both ends, as numbers
        ticks = [(low, f"{low:.3g}"), (high, f"{high:.3g}")] if high > low else [(low, f"{low:.3g}")]
    return ticks


def tick_text(mantissa: int, power: int) -> str:
    """``mantissa × 10^power`` as a label: plain digits from 0.001 to 99,999, else ``m×10ⁿ``."""
    if -3 <= power <= 4:
        return f"{mantissa * 10.0**power:,.{max(0, -power)}f}"
    return (
        f"{mantissa}×10{str(power).translate(SUPERSCRIPT)}"
        if mantissa != 1
        else f"10{str(power).translate(SUPERSCRIPT)}"
    )


def log_axis(values: np.ndarray) -> dict[str, Any]:
    """Plotly axis settings of a log axis over ``values``: explicit ticks from :func:`log_ticks`."""
    if len(values) == 0:
        return {}
    ticks = log_ticks(float(values.min()), float(values.max()))
    if not ticks:
        return {}
    return {"tickmode": "array", "tickvals": [v for v, _ in ticks], "ticktext": [t for _, t in ticks]}
