"""SimCSE's one-click preset (:class:`engine.core.declaration.Preset`), listed by
:func:`engine.lessons.presets.presets`.

"SimCSE Figure 2": the four runs of Gao et al. 2021, Fig. 2 (:data:`engine.simcse.views.FIGURE2_RUNS`: unsup
SimCSE, no dropout, fixed 0.1, delete one word), evaluated every 10 steps as in the paper, on STS-B dev when
the data folder holds it, else on the built-in demo pairs (its description says which).
"""

from __future__ import annotations

from typing import Any

from engine.core.declaration import Preset
from engine.training.presets import SHORT, sts_evaluation

FIGURE2 = "SimCSE Figure 2"


def _figure2_runs() -> dict[str, dict[str, Any]]:
    """The four runs, the same-mask one (one forward a step: about half the work) last, so that runs side by
    side (``engine.jobs``) end close together."""
    from engine.simcse.views import FIGURE2_RUNS

    order = sorted(FIGURE2_RUNS, key=lambda name: bool(FIGURE2_RUNS[name].get("same_mask")))
    return {name: dict(FIGURE2_RUNS[name]) for name in order}


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
            lecture=True,
        )
    ]
