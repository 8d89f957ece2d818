"""The settings of one JEPA run (:class:`JEPAConfig`), their checks, and the columns a run logs.

The objective (BYOL, Grill et al. 2020; SimSiam, Chen & He 2021; I-JEPA, Assran et al. 2023; BSL, Zhang et
al. 2021 for sentences): an online encoder f_θ reads the context view, a target encoder f_ξ (an EMA copy)
the target view, a predictor g maps the online embedding to the target's, loss 2 − 2 cos, symmetrised. The
switches are the ablations that decide collapse: the EMA momentum (0: the target is the online encoder),
the predictor, the stop-gradient, and an anti-collapse regulariser (VICReg or SIGReg). The data, encoder,
evaluation, probe, snapshot and device knobs are SimCSE's (:mod:`engine.simcse.config`), read by SimCSE's
data and evaluation modules. CLI: ``python -m engine jepa``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from engine.errors import ConfigError
from engine.knobs import knob, validate
from engine.simcse.config import (
    GEOMETRY_COLUMNS,
    MAX_STEPS,
    PROBE_COLUMNS,
    SimCSEConfig,
    is_eval_step,
    is_snapshot_step,
)

#: the two views: SimCSE's view switches (context = the changed sentence, target = the sentence) and span
#: masking (context = the sentence with 15–50 % of its words masked in contiguous spans)
VIEWS = ("span-mask", "dropout", "delete-one-word", "crop", "word-deletion")
REGULARISERS = ("none", "vicreg", "sigreg")
COLLAPSE_COLUMNS = ("alpha_req", "dim_std_mean", "dim_std_min")
BASE_COLUMNS = (
    "step",
    "loss",
    "alignment",
    "uniformity",
    "sts_spearman",
    "isoscore",
    *GEOMETRY_COLUMNS,
    *COLLAPSE_COLUMNS,
)

_SIMCSE = {item.name: item for item in fields(SimCSEConfig)}


def _same_as_simcse(name: str, default: object = None, **changes: object) -> object:
    """SimCSE's declaration of knob ``name`` (its help, range, widget), with ``changes`` to its metadata."""
    spec = dict(_SIMCSE[name].metadata["knob"])
    spec.update(changes)
    if default is not None:
        spec["default"] = default
    return knob(spec.pop("default"), **spec)


@dataclass
class JEPAConfig:
    """Settings of one JEPA run (CLI: ``python -m engine jepa``); see :mod:`engine.jepa.train`."""

    view: str = knob(
        "span-mask",
        choices=VIEWS,
        help="the context view (the target is the whole sentence): span-mask: 15–50 % of the words masked "
        "in contiguous spans (I-JEPA's way); dropout: the same sentence, other dropout masks; "
        "delete-one-word, crop, word-deletion: SimCSE's augmentations.",
        label="Context view",
        widget="radio",
    )
    mask_min: float = knob(
        0.15,
        low=0.0,
        high=0.9,
        help="span-mask: the smallest share of the words masked (at most --mask-max)",
        label="Mask from",
    )
    mask_max: float = knob(
        0.5,
        low=0.0,
        high=0.9,
        help="span-mask: the largest share of the words masked (at least --mask-min)",
        label="Mask up to",
    )
    ema: float = knob(
        0.996,
        low=0.0,
        high=1.0,
        open_high=True,
        help="EMA momentum m of the target encoder, rising to 1 on a cosine schedule (BYOL); 0: no target "
        "copy, the target is the online encoder (its gradient stopped unless --no-stop-grad).",
        label="EMA momentum (0 = off)",
        widget="number",
        fmt="%.4f",
        step=0.001,
    )
    predictor: bool = knob(
        True,
        help="Predictor g (MLP d → h → d with batch normalisation) on the online embedding.",
        label="Predictor",
        widget="toggle",
    )
    predictor_hidden: int = knob(
        1024, low=1, high=65536, unit="units", help="hidden width h of the predictor", label="Predictor width"
    )
    predictor_lr_scale: float = knob(
        10.0,
        low=0.0,
        high=1e4,
        open_low=True,
        help="the predictor's learning rate as a multiple of the encoder's (a fresh MLP on a pre-trained "
        "encoder)",
    )
    stop_grad: bool = knob(
        True,
        help="Stop the gradient through the target (with an EMA target there is none anyway; it matters "
        "at EMA 0, where the target is the online encoder).",
        label="Stop-gradient",
        widget="toggle",
    )
    regulariser: str = knob(
        "none",
        choices=REGULARISERS,
        help="anti-collapse term on the online embeddings: vicreg: invariance + variance + covariance "
        "(Bardes et al. 2022); sigreg: random 1-D projections tested against N(0, 1) by the Epps–Pulley "
        "statistic (LeJEPA, Balestriero & LeCun 2025).",
        label="Regulariser",
        widget="radio",
    )
    vicreg_invariance: float = knob(25.0, low=0.0, high=1e6, help="VICReg weight λ of the invariance (MSE)")
    vicreg_variance: float = knob(25.0, low=0.0, high=1e6, help="VICReg weight μ of the variance hinge")
    vicreg_covariance: float = knob(1.0, low=0.0, high=1e6, help="VICReg weight ν of the covariance")
    sigreg_weight: float = knob(0.05, low=0.0, high=1e6, help="SIGReg weight λ (LeJEPA: 0.05)")
    sigreg_projections: int = knob(
        256, low=1, high=1 << 16, unit="directions", help="SIGReg: random unit directions drawn each step"
    )
    dropout: float = _same_as_simcse("dropout")
    augment_rate: float = _same_as_simcse(
        "augment_rate", help="k for crop / word-deletion: the fraction of the words affected"
    )
    pooler: str = _same_as_simcse(
        "pooler",
        "avg",
        help="avg: mean of tokens (the bundled MiniLM's own); cls: [CLS] + MLP in training "
        "only; cls-mlp: MLP kept",
    )
    train: str | None = _same_as_simcse("train", help="training set: wiki1m, demo or a file")
    data_dir: str | None = _same_as_simcse("data_dir")
    encoder: str | None = _same_as_simcse("encoder")
    steps: int = _same_as_simcse("steps")
    batch_size: int = _same_as_simcse(
        "batch_size", help="Sentences per step, whatever the number of processes."
    )
    lr: float = _same_as_simcse("lr", help="AdamW's step size, decayed linearly to 0.")
    max_len: int = _same_as_simcse("max_len")
    eval: str | None = _same_as_simcse("eval")
    eval_limit: int | None = _same_as_simcse("eval_limit")
    eval_every: int = _same_as_simcse("eval_every")
    probe: str | None = _same_as_simcse("probe")
    probe_limit: int | None = _same_as_simcse("probe_limit")
    seed: int = _same_as_simcse("seed")
    device: str = _same_as_simcse("device")
    snapshot_every: int = _same_as_simcse("snapshot_every")
    train_limit: int | None = _same_as_simcse("train_limit")
    precision: str = _same_as_simcse("precision")

    #: SimCSE's data modules read these (JEPA trains on plain sentences; no same-mask view)
    mode = "unsup"
    same_mask = False

    def __post_init__(self) -> None:
        validate(self)
        if self.mask_min > self.mask_max:
            raise ConfigError(
                f"mask_min ({self.mask_min:g}) must not exceed mask_max ({self.mask_max:g}): the share of "
                "the words masked is drawn from mask_min to mask_max"
            )

    @property
    def augment(self) -> str:
        """The SimCSE augmentation of the context view ("none" for dropout and span masking)."""
        return self.view if self.view in ("delete-one-word", "crop", "word-deletion") else "none"

    @property
    def uses_target_copy(self) -> bool:
        """An EMA target encoder exists (m > 0); else the target is the online encoder."""
        return self.ema > 0

    def metric_columns(self) -> list[str]:
        """CSV columns: probe columns only when a probe set is given."""
        probe = list(PROBE_COLUMNS) if self.probe else []
        return [*BASE_COLUMNS, *probe, "seconds", "eval_seconds"]


__all__ = [
    "BASE_COLUMNS",
    "COLLAPSE_COLUMNS",
    "MAX_STEPS",
    "REGULARISERS",
    "VIEWS",
    "JEPAConfig",
    "is_eval_step",
    "is_snapshot_step",
]
