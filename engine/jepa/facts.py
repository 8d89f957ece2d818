"""What a JEPA run's figures and replay say about it: the data its measures come from (SimCSE's evaluation
pairs and probe set, :mod:`engine.simcse.facts`) and its switches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.jepa.config import COLLAPSE_COLUMNS
from engine.simcse import facts


def measured_on(
    config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """As SimCSE's: the evaluation pairs (the collapse lens and the isotropy family: their sentences), the
    probe set for ``probe_*``, None for the training loss."""
    on_sentences = (*COLLAPSE_COLUMNS, "effective_rank", "average_cosine", "partition_isotropy")
    return facts.measured_on(config, summary, None if metric in on_sentences else metric)


def describe(config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The replay's rows of a JEPA run: data, evaluation, views, and the switches that decide collapse."""
    rows = [row for row in facts.describe(config, summary) if row[0] != "Mode"]
    ema = float(config.get("ema", 0) or 0)
    target = f"EMA copy, m from {ema:g} to 1 (cosine)" if ema > 0 else "the online encoder"
    if ema == 0:
        target += ", gradient stopped" if config.get("stop_grad", True) else ", gradient NOT stopped"
    rows.append(("Target", target))
    predictor = config.get("predictor", True)
    rows.append(("Predictor", f"MLP, hidden {config.get('predictor_hidden')}" if predictor else "none"))
    rows.append(("Regulariser", str(config.get("regulariser", "none"))))
    return rows
