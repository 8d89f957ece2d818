"""What a JEPA run's figures and replay say about it: the data its measures come from (the evaluation pairs
and labelled set, :mod:`engine.training.facts`) and its switches (a switch missing from an old run's config
reads as its declared default, except the target's dropout, which reads as it then was: on)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.knobs import knob_of
from engine.jepa.config import COLLAPSE_COLUMNS, JEPAConfig
from engine.training import facts
from engine.training.config import GEOMETRY_COLUMNS


def measured_on(
    config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """As SimCSE's: the evaluation pairs (the collapse lens and the isotropy family: their sentences), the
    labelled set for ``probe_*``, None for the training loss."""
    on_sentences = (*COLLAPSE_COLUMNS, *GEOMETRY_COLUMNS)
    return facts.measured_on(config, summary, None if metric in on_sentences else metric)


def _setting(config: Mapping[str, Any], name: str) -> Any:
    """The run's value of knob ``name``, its declared default where the config lacks it (or holds None)."""
    value = config.get(name)
    return knob_of(JEPAConfig, name).default if value is None else value


def _target_dropout(config: Mapping[str, Any]) -> bool:
    """Whether the run's EMA target encoded with dropout. The one switch that does not read as its default
    when missing: a config without it is from before the switch (2026-11-29), when the target always ran
    with the online encoder's dropout."""
    value = config.get("target_dropout")
    return True if value is None else bool(value)


def describe(config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The replay's rows of a JEPA run: data, evaluation, views, and the switches that decide collapse."""
    rows = facts.data_rows(config, summary)
    ema = float(_setting(config, "ema"))
    target = f"EMA copy, m from {ema:g} to 1 (cosine)" if ema > 0 else "the online encoder"
    if ema > 0:
        target += ", with dropout" if _target_dropout(config) else ", without dropout"
    if ema == 0:
        target += ", gradient stopped" if _setting(config, "stop_grad") else ", gradient NOT stopped"
    rows.append(("Target", target))
    predictor = _setting(config, "predictor")
    rows.append(("Predictor", f"MLP, hidden {_setting(config, 'predictor_hidden')}" if predictor else "none"))
    rows.append(("Regulariser", str(_setting(config, "regulariser"))))
    return rows
