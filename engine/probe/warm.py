"""The probe's warm-up in a spare child (:func:`engine.jobs.spare_entry.warm_default_encoder`): the demo
corpus's embeddings put in the embedding cache, so that the Overview's one-click demo skips encoding."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def warm_demo(encode: Callable[[list[str]], Any]) -> None:
    """Build the demo's problem with ``encode`` (the spare's encoder, through the embedding cache)."""
    from engine.probe import ProbeConfig, build_problem

    build_problem(ProbeConfig(data="demo"), encode)
