"""The settings of one SimCSE run (:class:`SimCSEConfig`), their checks, and the columns a run logs.

Hyper-parameters default to the paper's unsup BERT-base run (Gao, Yao & Chen 2021, arXiv 2104.08821:
batch 64, lr 3e-5, max length 32, τ 0.05); the CLI is ``python -m engine simcse``. Each field is declared
once (:mod:`engine.knobs`): the CLI flags, the SimCSE page's sidebar, the checks and the settings table come
from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import paths
from engine.device import PRECISIONS
from engine.errors import ConfigError
from engine.knobs import knob, validate
from engine.simcse.views import AUGMENTATIONS, VIEWS

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


_DROPOUT = VIEWS["dropout"].params[0]
_RATE = VIEWS["crop"].params[0]


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
    train: str | None = knob(
        None,
        help="training set: wiki1m, snli, demo, demo-nli or a file (default: wiki1m/snli if present)",
        widget="page",
    )
    data_dir: str | None = knob(
        None, help="folder of real data sets (default: $EMBEDLAB_DATA_DIR)", preset=False, widget="page"
    )
    dropout: float = knob(
        _DROPOUT.default,
        low=_DROPOUT.low,
        high=_DROPOUT.high,
        help=VIEWS["dropout"].explanation,
        label="Dropout p (0 = off)",
        widget="slider",
        step=0.01,
    )
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
    augment_rate: float = knob(
        _RATE.default,
        low=_RATE.low,
        high=_RATE.high,
        help="k for crop / word-deletion: the " + _RATE.help,
        label="k (fraction of words)",
        widget="slider",
        step=0.05,
    )
    pooler: str = knob(
        "native",
        choices=("native", *POOLER_CHOICES),
        help="native: the encoder's own pooling (its sentence-transformers config; cls when it has none, "
        "engine.simcse.baseline); cls: [CLS] + MLP in training only; cls-mlp: MLP kept; avg: mean of tokens",
    )
    encoder: str | None = knob(
        None,
        help="start from: bundled all-MiniLM-L6-v2 (default), a saved name, a folder or a hub id",
        preset=False,
        widget="page",
    )
    #: 100, not 250: 250 steps at batch 64 take about 6 minutes on a 2-core CPU, too long for the app's
    #: default run (docs/performance.md: 1.17 s a step)
    steps: int = knob(
        100,
        low=1,
        high=MAX_STEPS,
        unit="steps",
        help="Training steps.",
        label="Steps",
        widget="number",
        step=50,
    )
    batch_size: int = knob(
        64,
        low=2,
        high=1 << 16,
        unit="sentences",
        help="Sentences per step, whatever the number of processes; the other sentences of the batch are "
        "the negatives.",
        label="Batch size",
        widget="number",
    )
    lr: float = knob(
        3e-5,
        low=0.0,
        high=1.0,
        open_low=True,
        help="AdamW's step size, decayed linearly to 0 (the paper: 3e-5).",
        label="Learning rate",
        widget="number",
        fmt="%.0e",
    )
    max_len: int = knob(32, low=4, high=8192, unit="tokens", help="max tokens per sentence")
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
    eval: str | None = knob(None, help="evaluation pairs (default: stsb dev if present, else demo-pairs)")
    eval_limit: int | None = knob(
        250,
        low=2,
        high=100_000_000,
        zero="all",
        unit="pairs",
        help="A seeded subset of the evaluation pairs.",
        label="STS pairs evaluated (0 = all)",
        widget="number",
        step=50,
    )
    eval_every: int = knob(
        10,
        low=1,
        high=MAX_STEPS,
        unit="steps",
        help="Evaluate every k steps (and at the first and last).",
        label="Evaluate every k steps",
        widget="number",
    )
    probe: str | None = knob(
        None, help="labelled set (e.g. demo) for probe silhouette / IsoScore", widget="page"
    )
    probe_limit: int | None = knob(
        600, low=2, high=100_000_000, zero="all", unit="items", help="stratified subset of the probe set"
    )
    seed: int = knob(
        0,
        low=0,
        high=2**32 - 1,
        help="Fixes the random choices (subsets, initialisation, dropout masks).",
        label="Seed",
        widget="number",
        step=1,
        preset=False,
    )
    device: str = knob(
        "auto",
        help="auto, cpu or cuda[:N] (torchrun: each rank takes cuda:LOCAL_RANK)",
        label="Device",
        widget="select",
        options=("auto", "cpu", "cuda"),
        preset=False,
    )
    save_encoder: str | None = knob(
        None,
        metavar="NAME",
        help="When the run finishes, save the trained encoder as cache/encoders/NAME: pick it as Encoder on "
        "either page, rename or delete it on the Data & encoders page; an existing encoder of that name is "
        "kept unless replacing it is allowed.",
        label="Save the trained encoder as",
        widget="text",
        placeholder="a name (optional)",
    )
    replace_encoder: bool = knob(
        False,
        flag=None,  # the CLI's --force
        help="Allow overwriting a saved encoder of that name.",
        label="Replace an existing one",
        widget="checkbox",
    )
    snapshot_every: int = knob(
        0,
        low=0,
        high=MAX_STEPS,
        unit="steps",
        help="Keeps the embeddings of the probe (else the evaluation) sentences every k steps for the "
        "projection and its film (0: never).",
        label="UMAP frame every k steps (0 = off)",
        widget="number",
        step=1,
    )
    train_limit: int | None = knob(
        None, low=2, high=100_000_000, zero="all", unit="items", help="seeded subset of the training data"
    )
    precision: str = knob(
        "auto",
        choices=PRECISIONS,
        help="auto: the forward in bf16 autocast on CUDA and on CPUs with native bf16 (AVX512-BF16/AMX), "
        "evaluation in float32; fp32: float32 everywhere",
    )

    def __post_init__(self) -> None:
        validate(self)
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
