"""The settings of one JEPA run (:class:`JEPAConfig`), their checks, and the columns a run logs.

The objective (BYOL, Grill et al. 2020; SimSiam, Chen & He 2021; I-JEPA, Assran et al. 2023; BSL, Zhang et
al. 2021 for sentences): an online encoder f_θ reads the context view, a target encoder f_ξ (an EMA copy)
the target view, a predictor g maps the online embedding to the target's, loss 2 − 2 cos, symmetrised
(or one-way, the context predicting the target, with ``--no-symmetric``). The
switches are the ablations that decide collapse: the EMA momentum (0: the target is the online encoder),
the predictor, the stop-gradient, and an anti-collapse regulariser (VICReg or SIGReg). The data, encoder,
evaluation, probe, snapshot and device knobs are the shared ones (:mod:`engine.core.shared_knobs`), read by
the training core (:mod:`engine.training`). CLI: ``python -m engine jepa``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import measures
from engine.core.errors import ConfigError
from engine.core.knobs import knob, validate
from engine.core.shared_knobs import shared, shared_block
from engine.training.config import BASE_COLUMNS as TRAINING_COLUMNS
from engine.training.config import metric_columns

#: the two views: SimCSE's view switches (context = the changed sentence, target = the sentence) and span
#: masking (context = the sentence with 15–50 % of its words masked in contiguous spans)
VIEWS = ("span-mask", "dropout", "delete-one-word", "crop", "word-deletion")
REGULARISERS = ("none", "vicreg", "sigreg")
#: the collapse lens beside the training core's columns (RankMe is among those: the isotropy family's)
COLLAPSE_COLUMNS = measures.COLLAPSE_PROFILE
BASE_COLUMNS = (*TRAINING_COLUMNS, *COLLAPSE_COLUMNS)


def _mask_share(default: float, help: str, label: str) -> Any:
    """A bound of the share of the words that span masking masks, from 0 to 0.9 (``help`` after
    "span-mask: ")."""
    return knob(default, low=0.0, high=0.9, help=f"span-mask: {help}", label=label)


@dataclass
class _Objective:
    """JEPA's own knobs: the context view and the switches that decide collapse (first in its settings)."""

    view: str = knob(
        "span-mask",
        choices=VIEWS,
        help="the context view (the target is the whole sentence): span-mask: 15–50 % of the words masked "
        "in contiguous spans (I-JEPA's way); dropout: the same sentence, other dropout masks; "
        "delete-one-word, crop, word-deletion: SimCSE's augmentations.",
        label="Context view",
        widget="radio",
        recorded=True,
    )
    mask_min: float = _mask_share(
        0.15, "the smallest share of the words masked (at most --mask-max)", "Mask from"
    )
    mask_max: float = _mask_share(
        0.5, "the largest share of the words masked (at least --mask-min)", "Mask up to"
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
    target_dropout: bool = knob(
        False,
        help="Dropout in the EMA target's forward as in the online one (BYOL's target runs in training "
        "mode). Off: the target encodes without dropout, as data2vec's EMA teacher (eval mode): "
        "deterministic targets and a cheaper step (the dropout masks are most of a small encoder's forward "
        "on a CPU). No effect at EMA 0, where the target is the online encoder.",
        label="Target dropout",
        widget="toggle",
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
    symmetric: bool = knob(
        True,
        help="Symmetrised loss (BYOL): each view predicts the other, both views through both encoders. Off: "
        "the context view predicts the target view only (I-JEPA's direction); with an EMA target and no "
        "regulariser the online encoder then reads only the context and the target copy only the sentence, "
        "about half the compute of a step.",
        label="Symmetric loss",
        widget="toggle",
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


#: the shared knobs JEPA takes unchanged, after its own (pooler and train: JEPA's overrides, in their place)
_Shared = shared_block(
    "_Shared",
    "dropout augment_rate pooler train data_dir encoder steps batch_size lr max_len eval eval_limit "
    "eval_every probe probe_limit seed device snapshot_every train_limit precision",
)


@dataclass
class JEPAConfig(_Shared, _Objective):
    """Settings of one JEPA run (CLI: ``python -m engine jepa``); see :mod:`engine.jepa.train`."""

    pooler: str = shared(
        "pooler",
        "avg",
        help="avg: mean of tokens (the bundled MiniLM's own); cls: [CLS] + MLP in training "
        "only; cls-mlp: MLP kept",
        override="JEPA pools by the mean of tokens unless told otherwise: its presets, its lesson's numbers "
        "and the SimCSE reference run beside them were measured so (docs/results.md)",
    )
    train: str | None = shared(
        "train",
        help="training set: wiki1m, demo or a file",
        override="JEPA trains on plain sentences: the NLI sets (snli, demo-nli) are SimCSE's supervised data",
    )

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

    @property
    def one_way(self) -> bool:
        """The step runs the context through the online encoder and the sentence through the target copy
        only: a one-way loss, an EMA target and no regulariser (which reads both views' online embeddings)."""
        return not self.symmetric and self.uses_target_copy and self.regulariser == "none"

    def metric_columns(self) -> list[str]:
        """CSV columns: the collapse lens after the training core's, probe columns only when a labelled set is
        given (:mod:`engine.training.config`)."""
        return metric_columns(self, COLLAPSE_COLUMNS)


__all__ = ["BASE_COLUMNS", "COLLAPSE_COLUMNS", "REGULARISERS", "VIEWS", "JEPAConfig"]
