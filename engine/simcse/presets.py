"""SimCSE's one-click preset (:class:`engine.experiment.Preset`), listed by :func:`engine.presets.presets`.

"SimCSE Figure 2": the four runs of Gao et al. 2021, Fig. 2 (:data:`engine.simcse.views.FIGURE2_RUNS`: unsup
SimCSE, no dropout, fixed 0.1, delete one word), evaluated every 10 steps as in the paper, on STS-B dev when
the data folder holds it, else on the built-in demo pairs (its description says which).
"""

from __future__ import annotations

from typing import Any

from engine import paths
from engine.experiment import Preset

FIGURE2 = "SimCSE Figure 2"
#: the short CPU version of Figure 2 (``python -m engine lessons check --short``): the demo corpus and all
#: its pairs (no data folder needed; every pair, so that a seed changes the training, not the evaluation
#: set), a few small steps, no probe set or snapshots
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


def _figure2_runs() -> dict[str, dict[str, Any]]:
    """The four runs, the same-mask one (one forward a step: about half the work) last, so that runs side by
    side (``engine.jobs``) end close together."""
    from engine.simcse.views import FIGURE2_RUNS

    order = sorted(FIGURE2_RUNS, key=lambda name: bool(FIGURE2_RUNS[name].get("same_mask")))
    return {name: dict(FIGURE2_RUNS[name]) for name in order}


def sts_evaluation(settings: dict[str, Any] | None = None) -> str:
    """Where a SimCSE run with these settings evaluates, in words (as :func:`engine.simcse.train.default_sets`
    picks it): its ``eval`` set, else STS-B dev when the data folder holds ``stsb/``, else the demo pairs."""
    settings = settings or {}
    if settings.get("eval"):
        return str(settings["eval"])
    chosen = settings["data_dir"] if "data_dir" in settings else paths.app_data_dir()
    folder = paths.data_dir(None if chosen is None else str(chosen))
    if folder is not None and (folder / "stsb").is_dir():
        return "STS-B dev"
    return "the built-in demo pairs, not STS-B (no data folder holding stsb/ is set)"


def presets(settings: dict[str, Any] | None = None) -> list[Preset]:
    """SimCSE's presets; ``settings`` (the user's, e.g. the data folder) complete the description."""
    return [
        Preset(
            FIGURE2,
            "simcse",
            "Queues the four runs of SimCSE's Figure 2 (unsup SimCSE, no dropout, fixed 0.1, delete one "
            "word); "
            f"alignment and uniformity every 10 steps on {sts_evaluation(settings)}.",
            # the paper's runs whatever the sidebar says (dropout 0.1, no same mask, no augmentation but
            # theirs), and four runs do not save one encoder name
            base={
                "mode": "unsup",
                "eval_every": 10,
                "snapshot_every": 10,
                "probe": "demo",
                "dropout": 0.1,
                "same_mask": False,
                "augment": "none",
                "hard_negative_weight": 1.0,
                "save_encoder": None,
                "replace_encoder": False,
            },
            runs=_figure2_runs(),
            short=SHORT,
        )
    ]
