"""One SimCSE training step (Gao, Yao & Chen 2021; princeton-nlp/SimCSE ``cl_forward``):

    views (views.py) → one forward of all views (:class:`Towers`) → all-gather (distributed.py)
    → loss (losses.py) → AdamW step with linear decay

- pooler ``cls``: [CLS] + MLP in training, raw [CLS] at evaluation (``--mlp_only_train``, the unsup
  default); ``cls-mlp``: the MLP is kept; ``avg``: masked mean, no MLP;
- AdamW without weight decay and a linear decay to 0 without warm-up (Hugging Face Trainer defaults);
- ``precision="auto"``: the encoder's forward in bf16 autocast on CUDA (fp16 where bf16 is missing) and on
  CPUs with native bf16 (AVX512-BF16 / AMX), never fp16 on a CPU (SimCSE#273); the loss and the weight
  updates stay float32; ``precision="fp32"`` turns autocast off (:mod:`engine.device`);
- on a CPU the training forward runs a batch as a few length buckets (:class:`Towers`): the same vectors on
  fewer padded tokens; on CUDA, MPS and other accelerators, and for narrow encoders, one forward
  (:func:`bucket_limit`);
- AdamW is fused on CUDA, for-each on a CPU (:func:`adamw_options`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from engine.device import autocast, needs_grad_scaler, resolve_device
from engine.simcse import distributed
from engine.simcse.config import POOLER_CHOICES, SimCSEConfig
from engine.simcse.datasets import BatchSampler
from engine.simcse.losses import sup_loss, unsup_loss
from engine.simcse.views import ViewPlan, plan_of, set_dropout, step_rng

BUCKET_ROWS = (
    32  # at least this many sequences per length bucket (smaller GEMMs lose more than padding costs)
)
MAX_BUCKETS = 4  # measured at batch 64 × 2 views on 2 cores: 4 buckets beat 3 and 8 (docs/performance.md)
#: the narrowest encoder that buckets: below it a step is bound by per-operation overhead, not by FLOPs, and
#: one forward is faster (2 layers of width 64: buckets 5–14 % slower; MiniLM, 384: 15 % faster; 2026-11-27)
BUCKET_MIN_WIDTH = 256


def bucket_limit(device: torch.device | str, width: int | None = None) -> int:
    """The most length buckets a training forward on ``device`` runs, from the device's type (and the
    encoder's ``width``, its hidden size) alone: no sync, nothing read from a device.

    :data:`MAX_BUCKETS` on a CPU, where a step is compute-bound and every padded token costs its FLOPs,
    unless the encoder is narrower than :data:`BUCKET_MIN_WIDTH`; 1 (one forward) on CUDA, MPS and any other
    accelerator, where a step is bound by kernel launches and four forwards cost about four times one (H200,
    bundled MiniLM, batch 64: one forward 3.4× faster, issue 38).
    """
    if torch.device(device).type != "cpu" or (width is not None and width < BUCKET_MIN_WIDTH):
        return 1
    return MAX_BUCKETS


def adamw_options(device: torch.device) -> dict[str, Any]:
    """AdamW's options on ``device``: fused on CUDA (one kernel for every parameter); for-each on a CPU, where
    torch's default updates one tensor at a time (a kernel per operation and parameter): the same
    operations, so the same weights bit for bit, in fewer and larger kernels. On this 2-core CPU an update of
    a 2-layer, width-64 BERT's 2.0 M parameters took 73 ms for-each against 564 ms one at a time (loaded
    machine, 2026-11-27; fused, 5 ms, agrees only to float rounding, which Adam's ~sign-sized steps on
    near-zero gradients amplify past the tests' tolerances). Torch's default elsewhere."""
    if device.type == "cuda":
        return {"fused": True}
    return {"foreach": True} if device.type == "cpu" else {}


class Towers(nn.Module):
    """The trained modules (transformer + training MLP) behind one ``forward``, so DDP can wrap them.

    On a CPU ``forward`` runs a padded batch as a few length buckets (:func:`length_buckets`): the rows
    sorted by length, each bucket cut to its own longest row. The vectors are those of one padded forward
    (padding is masked out), computed on ~20 % fewer tokens at batch 64 × 2 views, length 32; only the
    dropout masks are drawn in another order. It stays one ``forward`` call, so DDP still sees one forward
    per step. ``max_buckets`` (default :func:`bucket_limit` of the encoder's device and width, fixed here)
    caps them; 1 is one padded forward.
    """

    def __init__(self, encoder: Any, use_mlp: bool, max_buckets: int | None = None):
        super().__init__()
        self.model = encoder.model
        self.mlp = encoder.mlp if use_mlp else None
        self.use_mlp = use_mlp
        self._forward = encoder.forward  # a bound method, not a sub-module
        right_padded = getattr(encoder.tokenizer, "padding_side", "right") == "right"
        width = getattr(encoder, "hidden_size", None)
        limit = bucket_limit(encoder.device, width) if max_buckets is None else int(max_buckets)
        self.max_buckets = limit if right_padded else 1

    def forward(self, batch: Any, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """The pooled vectors of ``batch``; ``lengths``: its rows' token counts on the host (the tokenizer's,
        :func:`tokenize`), else summed from the attention mask where it lives (the host on a CPU)."""
        mask = batch["attention_mask"]
        buckets = None
        if self.max_buckets > 1:
            lengths = mask.sum(dim=1) if lengths is None else lengths
            buckets = length_buckets(lengths, mask.shape[1], self.max_buckets)
        if buckets is None:
            return self._forward(batch, use_mlp=self.use_mlp)
        rows, width = mask.shape
        parts = []
        for index, length in buckets:
            sub = {
                key: value[index, :length] if value.dim() == 2 and value.shape == (rows, width) else value
                for key, value in batch.items()
            }
            parts.append(self._forward(sub, use_mlp=self.use_mlp))
        inverse = torch.argsort(torch.cat([index for index, _ in buckets])).to(mask.device)
        return torch.cat(parts)[inverse]


def length_buckets(
    lengths: torch.Tensor, width: int | None = None, limit: int = MAX_BUCKETS
) -> list[tuple[torch.Tensor, int]] | None:
    """``(row indices, length)`` per bucket of a right-padded batch sorted by length, or None for one forward
    (too few rows for two buckets, or no padding to cut). ``lengths``: the rows' token counts (or the
    attention mask itself), read where they are: pass host tensors to keep a device out of it; ``width``:
    the padded length (default: the mask's)."""
    if lengths.dim() == 2:
        lengths, width = lengths.sum(dim=1), lengths.shape[1]
    count = min(limit, len(lengths) // BUCKET_ROWS)
    if count < 2 or int(lengths.min()) == width:
        return None
    order = torch.argsort(lengths, stable=True)
    return [(index, max(1, int(lengths[index].max()))) for index in torch.tensor_split(order, count)]


def tokenize(towers: nn.Module, encoder: Any, texts: list[str], max_len: int) -> tuple[Any, Any]:
    """``texts`` tokenised for ``towers`` (DDP-wrapped or not): the batch on the device, and where the towers
    bucket it the rows' lengths, read on the host from the tokenizer's attention mask before the batch goes
    to the device (no read-back); None where they run one forward."""
    limit = getattr(getattr(towers, "module", towers), "max_buckets", 1)
    if limit < 2:
        return encoder.tokenize(texts, max_length=max_len), None
    if encoder.device.type == "cpu":
        batch = encoder.tokenize(texts, max_length=max_len)
        return batch, batch["attention_mask"].sum(dim=1)
    host = copy.copy(encoder)  # the same tokenisation, left on the host
    host.device = torch.device("cpu")
    batch = host.tokenize(texts, max_length=max_len)
    lengths = batch["attention_mask"].sum(dim=1)  # before the move: BatchEncoding.to moves in place
    return batch.to(encoder.device), lengths


def build_encoder(config: SimCSEConfig, device: torch.device) -> tuple[Any, bool]:
    """Load the encoder with the pooling of ``config.pooler`` and a fresh MLP where training needs one."""
    from engine.encoders import load_encoder, make_mlp
    from engine.simcse.baseline import resolve_pooler

    pooling, use_mlp = POOLER_CHOICES[resolve_pooler(config.pooler, config.encoder)]
    encoder = load_encoder(config.encoder, pooling=pooling, device=device, max_length=config.max_len)
    if use_mlp and encoder.mlp is None:
        encoder.mlp = make_mlp(encoder.hidden_size)
    set_dropout(encoder.model, config.dropout)
    return encoder.to(device).train(), use_mlp


def view_groups(
    data: Any, idx: np.ndarray, plan: ViewPlan, rng: np.random.Generator, mode: str
) -> list[list[str]]:
    """The texts of each view for batch ``idx``: [x, x⁺] (unsup), [x] (same mask), [x, x⁺, x⁻] (sup)."""
    if mode == "sup":
        return [
            [data.anchors[i] for i in idx],
            [data.positives[i] for i in idx],
            [data.negatives[i] for i in idx],
        ]
    texts = [data[i] for i in idx]
    if plan.one_forward:
        return [texts]
    return [texts, plan.second_view(texts, rng)]


def encode_views(
    towers: nn.Module, encoder: Any, groups: list[list[str]], plan: ViewPlan, max_len: int
) -> list[torch.Tensor]:
    """One forward pass over all views stacked (SimCSE's ``cl_forward``), split back per view.

    Same mask: the single view is used twice, ``z2 = z1`` (SimCSE#36). Views of the same texts (unsup with
    dropout views, no augmentation) are tokenised once and their tokens repeated: the same batch.
    """
    if len(groups) > 1 and all(group == groups[0] for group in groups[1:]):
        batch, lengths = tokenize(towers, encoder, groups[0], max_len)
        views = len(groups)
        batch = {key: value.repeat(views, *[1] * (value.dim() - 1)) for key, value in batch.items()}
        lengths = None if lengths is None else lengths.repeat(views)
    else:
        batch, lengths = tokenize(towers, encoder, [text for group in groups for text in group], max_len)
    z = towers(batch, lengths)
    zs = list(torch.split(z, len(groups[0])))
    return [zs[0], zs[0]] if plan.one_forward else zs


def contrastive_loss(zs: list[torch.Tensor], config: SimCSEConfig) -> torch.Tensor:
    """InfoNCE over in-batch negatives (unsup), with the hard negatives of NLI triples (sup): losses.py."""
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
        groups = view_groups(
            self.data, self.sampler(step), self.plan, step_rng(config.seed, step), config.mode
        )
        groups = [group[self.share] for group in groups]
        with autocast(self.device, precision=config.precision):
            zs = encode_views(self.towers, self.encoder, groups, self.plan, config.max_len)
        zs = [distributed.gather_with_grad(z, self.world) for z in zs]
        loss = contrastive_loss(zs, config)
        self.scaler.scale(loss * self.world.size).backward()  # DDP averages: x N gives the global gradient
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        self.schedule.step()
        return float(loss.detach())


def make_trainer(
    config: SimCSEConfig,
    data: Any,
    world: distributed.World | None = None,
    device: torch.device | None = None,
) -> Trainer:
    """Encoder (pooler, MLP, dropout), DDP wrapper, AdamW (no weight decay) with linear decay, sampler."""
    world = world or distributed.World()
    device = device or resolve_device(config.device)
    share = distributed.local_slice(config.batch_size, world)
    encoder, use_mlp = build_encoder(config, device)
    torch.manual_seed(config.seed + world.rank)  # dropout masks differ between ranks
    towers = distributed.wrap(Towers(encoder, use_mlp), world, device)
    optimizer = torch.optim.AdamW(
        towers.parameters(), lr=config.lr, weight_decay=0.0, **adamw_options(device)
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / config.steps))
    scaler = torch.amp.GradScaler(device.type, enabled=needs_grad_scaler(device, precision=config.precision))
    sampler = BatchSampler(len(data), config.batch_size, config.seed)
    return Trainer(
        config,
        world,
        device,
        data,
        encoder,
        towers,
        optimizer,
        schedule,
        scaler,
        sampler,
        plan_of(config),
        share,
    )
