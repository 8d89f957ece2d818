"""What SimCSE's figures and replay say about a run: the pairs and sets its measures come from
(:func:`engine.training.facts.measured_on`), its mode and the data it trained and evaluated on (read through
:mod:`engine.experiments`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.training.facts import data_rows, measured_on

__all__ = ["describe", "measured_on"]


def describe(config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The replay's data rows of a SimCSE run: mode, training data, evaluation, views and labelled set."""
    mode = {"unsup": "unsupervised", "sup": "supervised (NLI triples)"}.get(
        str(config.get("mode")), config.get("mode")
    )
    return [("Mode", str(mode)), *data_rows(config, summary)]
