"""JEPA's one-click presets (:class:`engine.core.declaration.Preset`), listed by
:func:`engine.lessons.presets.presets`.

- "Does JEPA collapse?": JEPA (EMA target + predictor + stop-gradient), stop-gradient only (SimSiam without
  its predictor), none of the three (the collapse case) and unsupervised SimCSE, the contrastive reference (a
  run of the SimCSE experiment: :attr:`~engine.core.declaration.Preset.run_kinds`), on the same data, steps
  and learning rate;
- "JEPA + SIGReg / + VICReg": the plain JEPA run beside the two regularised ones.

Each declares its short CPU version (:data:`SHORT`, for ``python -m engine lessons check --short``).

The learning rate is raised above SimCSE's 3e-5 (see :data:`COLLAPSE_LR`): the bundled encoder is already
trained contrastively and, at 3e-5, does not move far enough in a short run for the collapse to show.
"""

from __future__ import annotations

from typing import Any

from engine.core.declaration import Preset, Recorded
from engine.training.presets import SHORT as SIMCSE_SHORT
from engine.training.presets import sts_evaluation

COLLAPSE = "Does JEPA collapse?"
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
JEPA = {"ema": 0.996, "target_dropout": False, "predictor": True, "stop_grad": True, "regulariser": "none"}
#: unsupervised SimCSE with the JEPA runs' pooling (the mean of the tokens, the bundled MiniLM's own), so that
#: the four runs start from the same embeddings
SIMCSE_REFERENCE: dict[str, Any] = {
    "mode": "unsup",
    "pooler": "avg",
    "same_mask": False,
    "augment": "none",
    "save_encoder": None,
}
JEPA_RUN = "jepa (ema + predictor + stop-grad)"
STOP_GRAD_ONLY = "stop-grad only"
NONE_OF_THREE = "none of the three"
SIMCSE_RUN = "unsup simcse (reference)"
COLLAPSE_RUNS: dict[str, dict[str, Any]] = {
    JEPA_RUN: dict(JEPA),
    STOP_GRAD_ONLY: {"ema": 0.0, "predictor": False, "stop_grad": True, "regulariser": "none"},
    NONE_OF_THREE: {"ema": 0.0, "predictor": False, "stop_grad": False, "regulariser": "none"},
    SIMCSE_RUN: dict(SIMCSE_REFERENCE),
}
PLAIN, SIGREG, VICREG = "jepa", "jepa + sigreg", "jepa + vicreg"
REGULARISED_RUNS: dict[str, dict[str, Any]] = {
    PLAIN: dict(JEPA),
    SIGREG: {**JEPA, "regulariser": "sigreg"},
    VICREG: {**JEPA, "regulariser": "vicreg"},
}
#: the short CPU version of both presets (``lessons check --short``): a higher lr makes the collapse show
#: within a few steps (docs/results.md: at 3e-4 the collapse case fell to RankMe 2.8 in 30 steps)
SHORT: dict[str, Any] = {**SIMCSE_SHORT, "lr": 3e-4}


#: the full preset's runs shipped with the repository (seed 0, run again on 2026-12-02: docs/results.md,
#: "Does JEPA collapse?"): played by the page
RECORDED = Recorded(
    folder="cache/lessons-check/full",
    seeds=1,
    command='python -m engine lessons check --seeds 1 --preset "Does JEPA collapse?" --out DIR',
)


def presets(settings: dict[str, Any] | None = None) -> list[Preset]:
    """JEPA's presets (the collapse question with its SimCSE reference run, and the regularisers)."""
    where = sts_evaluation(settings)
    return [
        Preset(
            COLLAPSE,
            "jepa",
            f"Queues JEPA, stop-gradient only, none of the three (the collapse case) and unsupervised SimCSE "
            f"(the contrastive reference, on the SimCSE page and in Compare), {COLLAPSE_STEPS} steps at lr "
            f"{COLLAPSE_LR:g} on the demo corpus; RankMe, α-ReQ and the per-dimension std every 10 steps, "
            f"STS on {where}.",
            base={**SHARED, "view": "span-mask"},
            runs=COLLAPSE_RUNS,
            run_kinds={SIMCSE_RUN: "simcse"},
            short=SHORT,
            lecture=True,
            recorded=RECORDED,
        ),
        Preset(
            REGULARISED,
            "jepa",
            f"Queues plain JEPA beside JEPA + SIGReg (LeJEPA) and JEPA + VICReg, {COLLAPSE_STEPS} steps "
            f"at lr {COLLAPSE_LR:g}: SIGReg's target is an isotropic Gaussian "
            "(watch IsoScore and RankMe).",
            base={**SHARED, "view": "span-mask"},
            runs=REGULARISED_RUNS,
            short=SHORT,
        ),
    ]
