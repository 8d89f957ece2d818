"""JEPA's one-click presets (:class:`engine.experiment.Preset`), listed by :func:`engine.presets.presets`.

- "Does JEPA collapse?": JEPA (EMA target + predictor + stop-gradient), stop-gradient only (SimSiam without
  its predictor), and none of the three (the collapse case), on the same data, steps and learning rate;
- "Does JEPA collapse? (SimCSE reference)": unsupervised SimCSE on the same data, steps and learning rate. A
  preset queues runs of one kind (:class:`~engine.experiment.Preset` has one ``kind``), so the contrastive
  reference is a SimCSE preset of its own, declared here beside the JEPA one;
- "JEPA + SIGReg / + VICReg": the plain JEPA run beside the two regularised ones.

The learning rate is raised above SimCSE's 3e-5 (see :data:`COLLAPSE_LR`): the bundled encoder is already
trained contrastively and, at 3e-5, does not move far enough in a short run for the collapse to show.
"""

from __future__ import annotations

from typing import Any

from engine.experiment import Preset
from engine.simcse.presets import sts_evaluation

COLLAPSE = "Does JEPA collapse?"
COLLAPSE_SIMCSE = "Does JEPA collapse? (SimCSE reference)"
REGULARISED = "JEPA + SIGReg / + VICReg"
#: measured on the bundled MiniLM (docs/results.md): the contrast is clear within the preset's steps
COLLAPSE_LR = 1e-4
COLLAPSE_STEPS = 60

#: the fields shared by every run of these presets (the data, the length, the schedule, the evaluation)
SHARED: dict[str, Any] = {
    "train": "demo",
    "steps": COLLAPSE_STEPS,
    "batch_size": 32,
    "lr": COLLAPSE_LR,
    "eval_every": 10,
    "snapshot_every": 10,
    "probe": "demo",
    "dropout": 0.1,
}
JEPA = {"ema": 0.996, "predictor": True, "stop_grad": True, "regulariser": "none"}
COLLAPSE_RUNS: dict[str, dict[str, Any]] = {
    "jepa (ema + predictor + stop-grad)": dict(JEPA),
    "stop-grad only": {"ema": 0.0, "predictor": False, "stop_grad": True, "regulariser": "none"},
    "none of the three": {"ema": 0.0, "predictor": False, "stop_grad": False, "regulariser": "none"},
}
#: unsupervised SimCSE with the JEPA runs' pooling (the mean of the tokens, the bundled MiniLM's own), so that
#: the four runs start from the same embeddings
SIMCSE_REFERENCE: dict[str, Any] = {
    "mode": "unsup",
    "pooler": "avg",
    "same_mask": False,
    "augment": "none",
    "save_encoder": None,
}
REGULARISED_RUNS: dict[str, dict[str, Any]] = {
    "jepa": dict(JEPA),
    "jepa + sigreg": {**JEPA, "regulariser": "sigreg"},
    "jepa + vicreg": {**JEPA, "regulariser": "vicreg"},
}


def presets(settings: dict[str, Any] | None = None) -> list[Preset]:
    """JEPA's presets (and the SimCSE reference run of the collapse question)."""
    where = sts_evaluation(settings)
    return [
        Preset(
            COLLAPSE,
            "jepa",
            f"Queues JEPA, stop-gradient only and none of the three (the collapse case), {COLLAPSE_STEPS} "
            f"steps at lr {COLLAPSE_LR:g} on the demo corpus; RankMe, α-ReQ and the per-dimension std every "
            f"10 steps, STS on {where}. Queue “{COLLAPSE_SIMCSE}” beside it for the contrastive reference.",
            base={**SHARED, "view": "span-mask"},
            runs=COLLAPSE_RUNS,
        ),
        Preset(
            COLLAPSE_SIMCSE,
            "simcse",
            f"Unsupervised SimCSE with the settings of “{COLLAPSE}” (demo corpus, {COLLAPSE_STEPS} steps, lr "
            f"{COLLAPSE_LR:g}): the contrastive reference on the same charts.",
            base={**SHARED, **SIMCSE_REFERENCE},
            runs={"unsup simcse (reference)": {}},
        ),
        Preset(
            REGULARISED,
            "jepa",
            f"Queues plain JEPA beside JEPA + SIGReg (LeJEPA) and JEPA + VICReg, {COLLAPSE_STEPS} steps "
            f"at lr {COLLAPSE_LR:g}: SIGReg's target is an isotropic Gaussian "
            "(watch IsoScore and RankMe).",
            base={**SHARED, "view": "span-mask"},
            runs=REGULARISED_RUNS,
        ),
    ]
