"""What the presets of the encoder-training experiments share: the short CPU settings of the lesson check
(:data:`SHORT`) and where a run evaluates, in the words of a preset's description (:func:`sts_evaluation`)."""

from __future__ import annotations

from typing import Any

from engine.core import paths

#: the short CPU version of a preset (``python -m engine lessons check --short``): the demo corpus and all
#: its pairs (no data folder needed; every pair, so that a seed changes the training, not the evaluation
#: set), a few small steps, no labelled set or snapshots
SHORT: dict[str, Any] = {
    "train": "demo",
    "eval": "demo-pairs",
    "eval_limit": None,
    "steps": 10,
    "batch_size": 16,
    "eval_every": 5,
    "snapshot_every": 0,
    "probe": None,
}


def sts_evaluation(settings: dict[str, Any] | None = None) -> str:
    """Where a run with these settings evaluates, in words (as :func:`engine.training.data.default_sets`
    picks it): its ``eval`` set, else STS-B dev when the data folder holds ``stsb/``, else the demo pairs."""
    settings = settings or {}
    if settings.get("eval"):
        return str(settings["eval"])
    chosen = settings["data_dir"] if "data_dir" in settings else paths.app_data_dir()
    folder = paths.data_dir(None if chosen is None else str(chosen))
    if folder is not None and (folder / "stsb").is_dir():
        return "STS-B dev"
    return "the built-in demo pairs, not STS-B (no data folder holding stsb/ is set)"
