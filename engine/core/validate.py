"""Checks of user settings shared by every experiment config: one clear ConfigError line each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core.errors import ConfigError


def require_choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def require_number(
    name: str, value: Any, low: float, high: float, open_low: bool = False, open_high: bool = False
) -> float:
    """A finite real in ``[low, high]`` (``(low, …`` with ``open_low``, ``…, high)`` with ``open_high``),
    returned as float."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    ok = ok and math.isfinite(value)
    if ok and (low < value if open_low else low <= value) and (value < high if open_high else value <= high):
        return float(value)
    left = "(" if open_low else "["
    right = ")" if open_high else "]"
    raise ConfigError(f"{name} must be a number in {left}{low:g}, {high:g}{right}, got {value!r}")


def require_int(name: str, value: Any, low: int, high: int) -> None:
    """An integer (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ConfigError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
