"""What the probe's figures and replay say about a run: the data its measures come from, and the data and
labels it used (read through :mod:`engine.experiments`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.data.names import labelled_set

#: logged on the training problem itself, not measured on a data set
UNMEASURED = ("loss", "accuracy", "seconds")


def measured_on(
    config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """The probe's data set in words (and the demo's labels); None for the training loss and accuracy."""
    if metric in UNMEASURED:
        return None
    return labelled_set(config) or "probe"


def describe(config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The data row of the replay's settings block: the data set and how it was read."""
    data = str(config.get("data") or "")
    if not data:
        return []
    extra = [
        f"{key.replace('_', ' ')} {config[key]}"
        for key in ("split", "text_col", "label_col", "limit")
        if config.get(key) not in (None, "")
    ]
    return [("Data", data + (f" ({', '.join(extra)})" if extra else ""))]
