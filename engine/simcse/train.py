"""SimCSE training, one step at a time (Gao, Yao & Chen 2021, arXiv 2104.08821; princeton-nlp/SimCSE).

Read top to bottom: the config, the data, the encoder, then :func:`train_simcse`, whose loop is

    views (views.py) → one forward of all views → all-gather (distributed.py) → loss (losses.py)
    → AdamW step with linear decay → every ``eval_every`` steps: alignment, uniformity, STS Spearman, IsoScore

Conventions:
- step 0 is an evaluation of the encoder before any update; steps 1..N each follow one update;
- ``seconds`` is the cumulative training time, ``eval_seconds`` the cumulative evaluation time (apart);
- evaluation: alignment on the evaluation pairs with gold > 4, uniformity and IsoScore over all evaluation
  sentences, Spearman of the pairs' cosines (Wang & Isola 2020 as used in the paper's Figure 2);
- pooler ``cls``: [CLS] + MLP in training, raw [CLS] at evaluation (``--mlp_only_train``, the unsup
  default); ``cls-mlp``: the MLP is kept; ``avg``: masked mean, no MLP;
- hyper-parameters as the paper's unsup BERT-base run (batch 64, lr 3e-5, max length 32, τ 0.05), AdamW
  without weight decay and a linear decay to 0 without warm-up (Hugging Face Trainer defaults);
- mixed precision only on CUDA (engine.device), so CPU runs never fail on fp16 (SimCSE#273).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from engine import paths
from engine.device import autocast, needs_grad_scaler, resolve_device, seed_everything, timed
from engine.errors import ConfigError, DataError
from engine.events import Event, Points, Progress, Row
from engine.simcse import distributed
from engine.simcse.losses import sup_loss, unsup_loss
from engine.simcse.views import AUGMENTATIONS, ViewPlan, plan_of, set_dropout, step_rng
from engine.validate import require_choice, require_int, require_number

MODES = ("unsup", "sup")
#: SimCSE pooler name -> (the encoder's inference pooling, MLP used in training)
POOLER_CHOICES: dict[str, tuple[str, bool]] = {
    "cls": ("cls_before_pooler", True),
    "cls-mlp": ("cls", True),
    "avg": ("avg", False),
}
MAX_STEPS = 10_000_000
EVAL_CHUNK = 256  # sentences encoded between two looks at the stop flag
BASE_COLUMNS = ("step", "loss", "alignment", "uniformity", "sts_spearman", "isoscore")
PROBE_COLUMNS = ("probe_silhouette", "probe_isoscore")


# ------------------------------------------------------------------------------------------- config


@dataclass
class SimCSEConfig:
    """Settings of one SimCSE run (CLI: ``python -m engine simcse``); see the module docstring."""

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

    def __post_init__(self) -> None:
        require_choice("mode", self.mode, MODES)
        require_choice("augment", self.augment, tuple(AUGMENTATIONS))
        require_choice("pooler", self.pooler, tuple(POOLER_CHOICES))
        self.dropout = require_number("dropout", self.dropout, 0.0, 0.9)
        self.augment_rate = require_number("augment_rate", self.augment_rate, 0.0, 0.9)
        self.lr = require_number("lr", self.lr, 0.0, 1.0, open_low=True)
        self.temp = require_number("temp", self.temp, 0.0, 100.0, open_low=True)
        self.hard_negative_weight = require_number("hard_negative_weight", self.hard_negative_weight, 0.0, 1e6, open_low=True)
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
            raise ConfigError("same_mask and augment are unsupervised views; supervised SimCSE uses NLI triples")
        if self.save_encoder is not None:
            paths.safe_name(self.save_encoder, what="save_encoder")

    def metric_columns(self) -> list[str]:
        """CSV columns: probe columns only when a probe set is given."""
        probe = list(PROBE_COLUMNS) if self.probe else []
        return [*BASE_COLUMNS, *probe, "seconds", "eval_seconds"]


# --------------------------------------------------------------------------------------------- data


def default_sets(config: SimCSEConfig) -> tuple[str, str]:
    """(training set, evaluation set) names: the real sets when the data folder has them, else the demo."""
    folder = paths.data_dir(config.data_dir)
    has = (lambda sub: folder is not None and (folder / sub).is_dir())  # noqa: E731
    train = config.train or (
        ("wiki1m" if has("wiki") else "demo") if config.mode == "unsup" else ("snli" if has("snli") else "demo-nli")
    )
    evaluation = config.eval or ("stsb" if has("stsb") else "demo-pairs")
    return train, evaluation


def _load(name: str, config: SimCSEConfig, kind: str | None = None, **kwargs: Any) -> Any:
    """A built-in set by name, or a user file read as ``kind`` (sentences, triples, pairs, labelled)."""
    from engine.data import DATASETS, load_dataset

    file_kind = None if name.strip().lower() in DATASETS else kind
    return load_dataset(name, data_dir=config.data_dir, seed=config.seed, kind=file_kind, **kwargs)


def load_training(config: SimCSEConfig) -> list[str] | Any:
    """Unsup: a list of sentences; sup: ``NliTriples`` (premise groups of NLI pairs become triples)."""
    from engine.data import to_sentences, to_triples

    name, _ = default_sets(config)
    dataset = _load(name, config, "sentences" if config.mode == "unsup" else "triples", limit=config.train_limit)
    if config.mode == "unsup":
        data: Any = list(to_sentences(dataset).texts)
    else:
        data = to_triples(dataset)
    if len(data) < config.batch_size:
        raise ConfigError(f"batch_size {config.batch_size} is larger than the {len(data)} training examples of {name}")
    return data


@dataclass
class EvalSet:
    """Evaluation pairs as indices into unique sentences."""

    name: str
    sentences: list[str]
    left: np.ndarray
    right: np.ndarray
    gold: np.ndarray


def load_eval(config: SimCSEConfig) -> EvalSet:
    """STS-style pairs (0–5 gold); a seeded subset of ``eval_limit`` pairs."""
    _, name = default_sets(config)
    kwargs = {"split": "dev"} if name == "stsb" else {}
    pairs = _load(name, config, "pairs", **kwargs)
    if not hasattr(pairs, "scores"):
        raise DataError(f"{name}: evaluation needs scored sentence pairs (sentence1, sentence2, score)")
    keep = np.arange(len(pairs))
    if config.eval_limit is not None and config.eval_limit < len(pairs):
        keep = np.sort(np.random.default_rng(config.seed).permutation(len(pairs))[: config.eval_limit])
    left = [pairs.left[i] for i in keep]
    right = [pairs.right[i] for i in keep]
    sentences = list(dict.fromkeys(left + right))
    where = {text: i for i, text in enumerate(sentences)}
    if len(keep) < 2:
        raise DataError(f"{name}: needs at least 2 scored pairs, found {len(keep)}")
    return EvalSet(
        name,
        sentences,
        np.array([where[t] for t in left]),
        np.array([where[t] for t in right]),
        np.asarray(pairs.scores, dtype=np.float64)[keep],
    )


def load_probe(config: SimCSEConfig) -> Any:
    """The labelled probe set (``LabelledTexts``), stratified to ``probe_limit``; None without a probe."""
    if not config.probe:
        return None
    from engine.data import stratified_subset

    dataset = _load(config.probe, config, "labelled")
    if not hasattr(dataset, "labels") or not hasattr(dataset, "texts"):
        raise DataError(f"{config.probe}: the probe needs labelled sentences (text, label)")
    if config.probe_limit is not None and config.probe_limit < len(dataset):
        dataset = stratified_subset(dataset, config.probe_limit, config.seed)
    return dataset


class BatchSampler:
    """Seeded epochs: batch ``s`` (1-based) is slice ``j`` of epoch ``e``'s permutation (last partial dropped)."""

    def __init__(self, n: int, batch_size: int, seed: int):
        self.n, self.batch_size, self.seed = n, batch_size, seed
        self.per_epoch = n // batch_size
        self._epoch, self._perm = -1, np.arange(0)

    def __call__(self, step: int) -> np.ndarray:
        epoch, j = divmod(step - 1, self.per_epoch)
        if epoch != self._epoch:
            self._epoch, self._perm = epoch, np.random.default_rng([self.seed, 7919, epoch]).permutation(self.n)
        return self._perm[j * self.batch_size:(j + 1) * self.batch_size]


# ------------------------------------------------------------------------------------------ encoder


class Towers(nn.Module):
    """The trained modules (transformer + training MLP) behind one ``forward``, so DDP can wrap them."""

    def __init__(self, encoder: Any, use_mlp: bool):
        super().__init__()
        self.model = encoder.model
        self.mlp = encoder.mlp if use_mlp else None
        self.use_mlp = use_mlp
        self._forward = encoder.forward  # a bound method, not a sub-module

    def forward(self, batch: Any) -> torch.Tensor:
        return self._forward(batch, use_mlp=self.use_mlp)


def build_encoder(config: SimCSEConfig, device: torch.device) -> tuple[Any, bool]:
    """Load the encoder with the pooling of ``config.pooler`` and a fresh MLP where training needs one."""
    from engine.encoders import load_encoder, make_mlp

    pooling, use_mlp = POOLER_CHOICES[config.pooler]
    encoder = load_encoder(config.encoder, pooling=pooling, device=device, max_length=config.max_len)
    if use_mlp and encoder.mlp is None:
        encoder.mlp = make_mlp(encoder.hidden_size)
    set_dropout(encoder.model, config.dropout)
    return encoder.to(device).train(), use_mlp


# --------------------------------------------------------------------------------------------- step


def view_groups(data: Any, idx: np.ndarray, plan: ViewPlan, rng: np.random.Generator, mode: str) -> list[list[str]]:
    """The texts of each view for batch ``idx``: [x, x⁺] (unsup), [x] (same mask), [x, x⁺, x⁻] (sup)."""
    if mode == "sup":
        return [[data.anchors[i] for i in idx], [data.positives[i] for i in idx], [data.negatives[i] for i in idx]]
    texts = [data[i] for i in idx]
    if plan.one_forward:
        return [texts]
    return [texts, plan.second_view(texts, rng)]


def encode_views(towers: nn.Module, encoder: Any, groups: list[list[str]], plan: ViewPlan, max_len: int) -> list[torch.Tensor]:
    """One forward pass over all views stacked (SimCSE's ``cl_forward``), split back per view.

    Same mask: the single view is used twice, ``z2 = z1`` (SimCSE#36).
    """
    flat = [text for group in groups for text in group]
    z = towers(encoder.tokenize(flat, max_length=max_len))
    zs = list(torch.split(z, len(groups[0])))
    return [zs[0], zs[0]] if plan.one_forward else zs


def contrastive_loss(zs: list[torch.Tensor], config: SimCSEConfig) -> torch.Tensor:
    if config.mode == "sup":
        return sup_loss(zs[0], zs[1], zs[2], config.temp, config.hard_negative_weight)
    return unsup_loss(zs[0], zs[1], config.temp)


@dataclass
class Trainer:
    """Everything one training step needs; :meth:`step` is the whole update."""

    config: SimCSEConfig
    world: distributed.World
    device: torch.device
    data: Any
    encoder: Any
    towers: nn.Module
    optimizer: torch.optim.Optimizer
    schedule: Any
    scaler: Any
    sampler: BatchSampler
    plan: ViewPlan
    share: slice

    def step(self, step: int) -> float:
        """Views of batch ``step`` → forward → all-gather → loss → AdamW update; returns the loss."""
        config = self.config
        groups = view_groups(self.data, self.sampler(step), self.plan, step_rng(config.seed, step), config.mode)
        groups = [group[self.share] for group in groups]
        with autocast(self.device):
            zs = encode_views(self.towers, self.encoder, groups, self.plan, config.max_len)
        zs = [distributed.gather_with_grad(z, self.world) for z in zs]
        loss = contrastive_loss(zs, config)
        self.scaler.scale(loss * self.world.size).backward()  # DDP averages: x N gives the global gradient
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        self.schedule.step()
        return float(loss.detach())


def make_trainer(config: SimCSEConfig, data: Any, world: distributed.World | None = None,
                 device: torch.device | None = None) -> Trainer:
    """Encoder (pooler, MLP, dropout), DDP wrapper, AdamW (no weight decay) with linear decay, sampler."""
    world = world or distributed.World()
    device = device or resolve_device(config.device)
    share = distributed.local_slice(config.batch_size, world)
    encoder, use_mlp = build_encoder(config, device)
    torch.manual_seed(config.seed + world.rank)  # dropout masks differ between ranks
    towers = distributed.wrap(Towers(encoder, use_mlp), world, device)
    optimizer = torch.optim.AdamW(towers.parameters(), lr=config.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / config.steps))
    scaler = torch.amp.GradScaler(device.type, enabled=needs_grad_scaler(device))
    sampler = BatchSampler(len(data), config.batch_size, config.seed)
    return Trainer(config, world, device, data, encoder, towers, optimizer, schedule, scaler, sampler,
                   plan_of(config), share)


# --------------------------------------------------------------------------------------- evaluation


def encode_stoppable(encoder: Any, texts: list[str], stop: threading.Event) -> np.ndarray | None:
    """``encoder.encode`` in chunks, looking at ``stop`` between chunks (None when stopped)."""
    parts = []
    for start in range(0, len(texts), EVAL_CHUNK):
        if stop.is_set():
            return None
        parts.append(encoder.encode(texts[start:start + EVAL_CHUNK], batch_size=128))
    return np.concatenate(parts) if parts else np.zeros((0, encoder.hidden_size), np.float32)


def evaluate(encoder: Any, evalset: EvalSet, probe: Any, stop: threading.Event) -> dict[str, Any] | None:
    """Figure-2 metrics on the evaluation pairs (+ probe silhouette / IsoScore); None when stopped."""
    from engine.metrics import alignment, isoscore, silhouette, sts_spearman, uniformity

    emb = encode_stoppable(encoder, evalset.sentences, stop)
    if emb is None:
        return None
    a, b = emb[evalset.left], emb[evalset.right]
    positive = evalset.gold > 4.0
    out: dict[str, Any] = {
        "alignment": alignment(a[positive], b[positive]) if positive.any() else None,
        "uniformity": uniformity(emb),
        "sts_spearman": sts_spearman(a, b, evalset.gold),
        "isoscore": isoscore(emb),
        "_points": emb,
    }
    if probe is not None:
        probe_emb = encode_stoppable(encoder, list(probe.texts), stop)
        if probe_emb is None:
            return out
        labels = [str(label) for label in probe.labels]
        out.update(probe_silhouette=silhouette(probe_emb, labels), probe_isoscore=isoscore(probe_emb),
                   _points=probe_emb)
    return out


def is_eval_step(step: int, config: SimCSEConfig) -> bool:
    return step % config.eval_every == 0 or step == config.steps or is_snapshot_step(step, config)


def is_snapshot_step(step: int, config: SimCSEConfig) -> bool:
    return bool(config.snapshot_every) and (step % config.snapshot_every == 0 or step == config.steps)


# --------------------------------------------------------------------------------------------- loop


def train_simcse(config: SimCSEConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train SimCSE; yield one metrics row per step (evaluation every ``eval_every`` steps).

    Under torchrun every process runs this generator; only rank 0 evaluates and yields evaluation rows
    (see :mod:`engine.simcse.distributed`).
    """
    stop = stop or threading.Event()
    seed_everything(config.seed)
    world, device = distributed.setup(resolve_device(config.device))
    try:
        yield from _train(config, stop, world, device)
    finally:
        distributed.shutdown(world)


def _train(config: SimCSEConfig, stop: threading.Event, world: distributed.World, device: torch.device):
    if config.save_encoder and world.is_main:  # a taken or reserved name fails now, not after the training
        from engine.encoders.store import check_save_name

        check_save_name(config.save_encoder, overwrite=config.replace_encoder)
    yield Progress("loading data", 0.0)
    data = load_training(config)
    evalset = load_eval(config)
    probe = load_probe(config)
    yield Progress("loading encoder", 0.5)
    trainer = make_trainer(config, data, world, device)
    if config.snapshot_every and world.is_main:
        if probe is not None:
            yield Points(list(probe.texts), [str(x) for x in probe.labels])
        else:
            yield Points(list(evalset.sentences), None)
    yield Progress("training", 1.0)

    train_seconds = eval_seconds = 0.0
    last_eval: dict[str, Any] = {}
    for step in range(config.steps + 1):
        row: dict[str, Any] = {}
        snapshot = None
        if step > 0:
            with timed(device) as took:
                row["loss"] = trainer.step(step)
            train_seconds += took[0]
        row["seconds"] = train_seconds
        if world.is_main and is_eval_step(step, config):
            with timed(device) as took:
                result = evaluate(trainer.encoder, evalset, probe, stop)
            eval_seconds += took[0]
            row["eval_seconds"] = eval_seconds
            if result is not None:
                points_now = result.pop("_points")
                row.update(result)
                last_eval = {k: v for k, v in result.items() if v is not None}
                if is_snapshot_step(step, config):
                    snapshot = points_now
        yield Row(step, row, snapshot)
        if distributed.any_rank(stop.is_set(), world, device):
            return
    if config.save_encoder and world.is_main:
        yield Progress("saving encoder", 1.0)
        save_trained(trainer.encoder, config, last_eval)


def save_trained(encoder: Any, config: SimCSEConfig, final: dict[str, Any]) -> Any:
    """Save to ``cache/encoders/<save_encoder>`` with a card (base model, data, switches, steps, metrics)."""
    from engine.encoders import save_encoder

    train, evaluation = default_sets(config)
    card = {
        "method": "SimCSE (Gao, Yao & Chen 2021)",
        "base_model": getattr(encoder, "base_model", encoder.name),
        "mode": config.mode,
        "train_data": train,
        "views": plan_of(config).describe(),
        "pooler": config.pooler,
        "steps": config.steps,
        "evaluation": evaluation,
        "final_metrics": final,
        "config": asdict(config),
    }
    return save_encoder(encoder, config.save_encoder, card, overwrite=config.replace_encoder)


# ------------------------------------------------------------------------------------------ summary


def summarize(rows: list[dict[str, Any]], config: SimCSEConfig) -> dict[str, Any]:
    """Start / end / best STS Spearman, alignment and uniformity, loss at start and end, time split."""

    def series(column: str) -> list[tuple[int, float]]:
        return [(int(r["step"]), float(r[column])) for r in rows
                if r.get(column) is not None and math.isfinite(float(r[column]))]

    out: dict[str, Any] = {"views": plan_of(config).describe(), "train_and_eval": list(default_sets(config))}
    for column in ("sts_spearman", "alignment", "uniformity", "isoscore", "probe_silhouette", "probe_isoscore"):
        values = series(column)
        if values:
            out[f"{column}_start"], out[f"{column}_end"] = values[0][1], values[-1][1]
    sts = series("sts_spearman")
    if sts:
        out["best_step"], out["sts_spearman_best"] = max(sts, key=lambda item: item[1])
    losses = [value for _, value in series("loss")]
    if losses:
        out["loss_first"], out["loss_last10"] = losses[0], float(np.mean(losses[-10:]))
    train_s = max((value for _, value in series("seconds")), default=0.0)
    eval_s = max((value for _, value in series("eval_seconds")), default=0.0)
    out.update(train_seconds=train_s, eval_seconds=eval_s, eval_overhead=eval_s / train_s if train_s else None)
    return out
