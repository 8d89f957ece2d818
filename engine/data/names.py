"""The words the figures use for data sets: a labelled set ("the demo topics", "SNLI validation", a file's
name) and an evaluation set ("STS-B dev", "built-in demo pairs")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: display names of evaluation sets (engine.training.data.default_sets)
EVAL_SETS = {"stsb": "STS-B dev", "stsb-dev": "STS-B dev", "demo-pairs": "built-in demo pairs"}


def labelled_set(config: Mapping[str, Any]) -> str:
    """A labelled set (a config's ``data``, ``label_col`` and ``split``) in words; "" when none is named."""
    data = str(config.get("data") or "")
    if data == "demo":
        return "the demo sentiment labels" if config.get("label_col") == "sentiment" else "the demo topics"
    if data == "snli":
        return f"SNLI {config.get('split') or 'validation'}"
    return data.replace("\\", "/").rsplit("/", 1)[-1]


def evaluation_set(name: str) -> str:
    """An evaluation set's name as a run records it (``stsb-dev (250 of 1,500 pairs)``) in words."""
    head, _, rest = str(name).strip().partition(" ")
    return " ".join(part for part in (EVAL_SETS.get(head.lower(), head), rest) if part)
