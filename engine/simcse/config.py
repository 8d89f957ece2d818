"""The settings of one SimCSE run (:class:`SimCSEConfig`), their checks, and the columns a run logs.

Hyper-parameters default to the paper's unsup BERT-base run (Gao, Yao & Chen 2021, arXiv 2104.08821:
batch 64, lr 3e-5, max length 32, τ 0.05); the CLI is ``python -m engine simcse``. Each field is declared
once (:mod:`engine.core.knobs`): the CLI flags, the SimCSE page's sidebar, the checks and the settings table
come from it; the knobs SimCSE shares with the other experiments are declared in
:mod:`engine.core.shared_knobs`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import paths
from engine.core.errors import ConfigError
from engine.core.knobs import knob, validate
from engine.core.shared_knobs import shared
from engine.simcse.augmentations import AUGMENTATIONS, VIEWS
from engine.training.config import BASE_COLUMNS, metric_columns

#: the dropout rate of the same-mask ablation: the paper's "fixed 0.1" (Table 3); ``same_mask`` implies it,
#: on the command line and on the page alike (:meth:`SimCSEConfig.__post_init__`)
SAME_MASK_DROPOUT = 0.1

MODES = ("unsup", "sup")


@dataclass
class SimCSEConfig:
    """Settings of one SimCSE run (CLI: ``python -m engine simcse``); see :mod:`engine.simcse.train`."""

    mode: str = knob(
        "unsup",
        choices=MODES,
        help="unsup: two dropout views; sup: NLI triples, entailment as positive, contradiction as hard "
        "negative (weight α).",
        label="Supervised (NLI triples)",
        widget="toggle",
        on="sup",
    )
    train: str | None = shared("train")
    data_dir: str | None = shared("data_dir")
    dropout: float = shared("dropout")
    same_mask: bool = knob(
        False, help=VIEWS["same-mask"].explanation, label="Same mask (fixed 0.1)", widget="toggle"
    )
    augment: str = knob(
        "none",
        choices=tuple(AUGMENTATIONS),
        help="second view: " + "; ".join(f"{k}: {VIEWS[k].explanation}" for k in AUGMENTATIONS if k in VIEWS),
        label="Augmentation of the positive",
        widget="radio",
    )
    augment_rate: float = shared("augment_rate")
    pooler: str = shared("pooler")
    encoder: str | None = shared("encoder")
    steps: int = shared("steps")
    batch_size: int = shared(
        "batch_size",
        help="Sentences per step, whatever the number of processes; the other sentences of the batch are "
        "the negatives.",
        override="in SimCSE the batch is also the negatives: its size is a hyper-parameter of the loss",
    )
    lr: float = shared("lr")
    max_len: int = shared("max_len")
    temp: float = knob(0.05, low=0.0, high=100.0, open_low=True, help="temperature τ")
    hard_negative_weight: float = knob(
        1.0,
        low=0.0,
        high=1e6,
        open_low=True,
        help="sup: α; log α is added to each anchor's own contradiction logit (paper Table 7: α = 1 is "
        "best).",
        label="Hard-negative weight α",
        widget="number",
    )
    eval: str | None = shared("eval")
    eval_limit: int | None = shared("eval_limit")
    eval_every: int = shared("eval_every")
    probe: str | None = shared("probe")
    probe_limit: int | None = shared("probe_limit")
    seed: int = shared("seed")
    device: str = shared("device")
    save_encoder: str | None = knob(
        None,
        metavar="NAME",
        help="When the run finishes, save the trained encoder as cache/encoders/NAME: pick it as Encoder on "
        "either page, rename or delete it on the Data & encoders page; an existing encoder of that name is "
        "kept unless replacing it is allowed.",
        label="Save the trained encoder as",
        widget="text",
        placeholder="a name (optional)",
        named=False,
    )
    replace_encoder: bool = knob(
        False,
        flag=None,  # the CLI's --force
        help="Allow overwriting a saved encoder of that name.",
        label="Replace an existing one",
        widget="checkbox",
        named=False,
    )
    snapshot_every: int = shared("snapshot_every")
    train_limit: int | None = shared("train_limit")
    precision: str = shared("precision")

    def __post_init__(self) -> None:
        validate(self)
        if self.same_mask:  # the ablation fixes the rate, whatever --dropout or a preset says
            self.dropout = SAME_MASK_DROPOUT
        if self.same_mask and self.augment != "none":
            raise ConfigError("same_mask (z2 = z1) cannot be combined with an augmentation: pick one")
        if self.mode == "sup" and (self.same_mask or self.augment != "none"):
            raise ConfigError(
                "same_mask and augment are unsupervised views; supervised SimCSE uses NLI triples"
            )
        if self.save_encoder is not None:
            paths.safe_name(self.save_encoder, what="save_encoder")

    def metric_columns(self) -> list[str]:
        """CSV columns: probe columns only when a labelled set is given (:mod:`engine.training.config`)."""
        return metric_columns(self)


__all__ = ["BASE_COLUMNS", "MODES", "SimCSEConfig"]
