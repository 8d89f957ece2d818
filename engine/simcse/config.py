"""The settings of one SimCSE run (:class:`SimCSEConfig`), their checks, and the columns a run logs.

Hyper-parameters default to the paper's unsup BERT-base run (Gao, Yao & Chen 2021, arXiv 2104.08821:
batch 64, lr 3e-5, max length 32, τ 0.05); the CLI is ``python -m engine simcse``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import paths
from engine.device import PRECISIONS
from engine.errors import ConfigError
from engine.simcse.views import AUGMENTATIONS
from engine.validate import require_choice, require_int, require_number

MODES = ("unsup", "sup")
#: SimCSE pooler name -> (the encoder's inference pooling, MLP used in training)
POOLER_CHOICES: dict[str, tuple[str, bool]] = {
    "cls": ("cls_before_pooler", True),
    "cls-mlp": ("cls", True),
    "avg": ("avg", False),
}
MAX_STEPS = 10_000_000
#: the isotropy family measured at each evaluation (engine.metrics.isotropy), on the evaluation sentences;
#: with a probe set also on it, as ``probe_<name>``
GEOMETRY_COLUMNS = ("effective_rank", "average_cosine", "partition_isotropy")
BASE_COLUMNS = ("step", "loss", "alignment", "uniformity", "sts_spearman", "isoscore", *GEOMETRY_COLUMNS)
PROBE_COLUMNS = ("probe_silhouette", "probe_isoscore", *(f"probe_{name}" for name in GEOMETRY_COLUMNS))


@dataclass
class SimCSEConfig:
    """Settings of one SimCSE run (CLI: ``python -m engine simcse``); see :mod:`engine.simcse.train`."""

    mode: str = "unsup"
    train: str | None = None  # None: wiki1m (unsup) / snli (sup) from data_dir, else the demo corpus
    data_dir: str | None = None
    dropout: float = 0.1
    same_mask: bool = False
    augment: str = "none"
    augment_rate: float = 0.1
    pooler: str = "cls"
    encoder: str | None = None  # None: the bundled all-MiniLM-L6-v2
    steps: int = 250
    batch_size: int = 64  # the global batch, whatever the number of processes
    lr: float = 3e-5
    max_len: int = 32
    temp: float = 0.05
    hard_negative_weight: float = 1.0  # α; log α is added to each anchor's own hard negative
    eval: str | None = None  # None: STS-B dev from data_dir when present, else demo-pairs
    eval_limit: int | None = 250  # pairs evaluated (seeded subset); None: all
    eval_every: int = 10
    probe: str | None = None  # a labelled set (e.g. demo) for silhouette / IsoScore
    probe_limit: int | None = 600  # stratified subset of the probe set; None: all
    seed: int = 0
    device: str = "auto"
    save_encoder: str | None = None  # name under cache/encoders/ (saved when the run finishes)
    replace_encoder: bool = False  # an existing saved encoder of that name may be replaced
    snapshot_every: int = 0  # 0: no snapshots; k: embeddings of probe (else eval) sentences every k steps
    train_limit: int | None = None  # seeded subset of the training data
    precision: str = (
        "auto"  # auto: bf16 autocast on CUDA and on CPUs with native bf16; fp32: never (engine.device)
    )

    def __post_init__(self) -> None:
        require_choice("mode", self.mode, MODES)
        require_choice("augment", self.augment, tuple(AUGMENTATIONS))
        require_choice("pooler", self.pooler, tuple(POOLER_CHOICES))
        require_choice("precision", self.precision, PRECISIONS)
        self.dropout = require_number("dropout", self.dropout, 0.0, 0.9)
        self.augment_rate = require_number("augment_rate", self.augment_rate, 0.0, 0.9)
        self.lr = require_number("lr", self.lr, 0.0, 1.0, open_low=True)
        self.temp = require_number("temp", self.temp, 0.0, 100.0, open_low=True)
        self.hard_negative_weight = require_number(
            "hard_negative_weight", self.hard_negative_weight, 0.0, 1e6, open_low=True
        )
        require_int("steps", self.steps, 1, MAX_STEPS)
        require_int("batch_size", self.batch_size, 2, 1 << 16)
        require_int("max_len", self.max_len, 4, 8192)
        require_int("eval_every", self.eval_every, 1, MAX_STEPS)
        require_int("snapshot_every", self.snapshot_every, 0, MAX_STEPS)
        require_int("seed", self.seed, 0, 2**32 - 1)
        for name in ("eval_limit", "probe_limit", "train_limit"):
            if getattr(self, name) is not None:
                require_int(name, getattr(self, name), 2, 100_000_000)
        if not isinstance(self.same_mask, bool):
            raise ConfigError(f"same_mask must be true or false, got {self.same_mask!r}")
        if self.same_mask and self.augment != "none":
            raise ConfigError("same_mask (z2 = z1) cannot be combined with an augmentation: pick one")
        if self.mode == "sup" and (self.same_mask or self.augment != "none"):
            raise ConfigError(
                "same_mask and augment are unsupervised views; supervised SimCSE uses NLI triples"
            )
        if self.save_encoder is not None:
            paths.safe_name(self.save_encoder, what="save_encoder")

    def metric_columns(self) -> list[str]:
        """CSV columns: probe columns only when a probe set is given."""
        probe = list(PROBE_COLUMNS) if self.probe else []
        return [*BASE_COLUMNS, *probe, "seconds", "eval_seconds"]


def is_eval_step(step: int, config: SimCSEConfig) -> bool:
    """Step 0, every ``eval_every``-th step, the last one, and every snapshot step are evaluated."""
    return step % config.eval_every == 0 or step == config.steps or is_snapshot_step(step, config)


def is_snapshot_step(step: int, config: SimCSEConfig) -> bool:
    return bool(config.snapshot_every) and (step % config.snapshot_every == 0 or step == config.steps)
