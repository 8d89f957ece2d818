"""One SimCSE training step (Gao, Yao & Chen 2021; princeton-nlp/SimCSE ``cl_forward``):

    views (views.py) → one forward of all views (:class:`Towers`) → all-gather (distributed.py)
    → loss (losses.py) → AdamW step with linear decay

- pooler ``cls``: [CLS] + MLP in training, raw [CLS] at evaluation (``--mlp_only_train``, the unsup
  default); ``cls-mlp``: the MLP is kept; ``avg``: masked mean, no MLP;
- AdamW without weight decay and a linear decay to 0 without warm-up (Hugging Face Trainer defaults);
- ``precision="auto"``: the encoder's forward in bf16 autocast on CUDA (fp16 where bf16 is missing) and on
  CPUs with native bf16 (AVX512-BF16 / AMX), never fp16 on a CPU (SimCSE#273); the loss and the weight
  updates stay float32; ``precision="fp32"`` turns autocast off (:mod:`engine.device`);
- the training forward runs a batch as a few length buckets (:class:`Towers`): the same vectors on fewer
  padded tokens.
"""

from __future__ import annotations

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


class Towers(nn.Module):
    """The trained modules (transformer + training MLP) behind one ``forward``, so DDP can wrap them.

    ``forward`` runs a padded batch as a few length buckets (:func:`length_buckets`): the rows sorted by
    length, each bucket cut to its own longest row. The vectors are those of one padded forward (padding
    is masked out), computed on ~20 % fewer tokens at batch 64 × 2 views, length 32; only the dropout
    masks are drawn in another order. It stays one ``forward`` call, so DDP still sees one forward per step.
    """

    def __init__(self, encoder: Any, use_mlp: bool):
        super().__init__()
        self.model = encoder.model
        self.mlp = encoder.mlp if use_mlp else None
        self.use_mlp = use_mlp
        self._forward = encoder.forward  # a bound method, not a sub-module
        self.right_padded = getattr(encoder.tokenizer, "padding_side", "right") == "right"

    def forward(self, batch: Any) -> torch.Tensor:
        mask = batch["attention_mask"]
        buckets = length_buckets(mask) if self.right_padded else None
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
        order = torch.cat([index for index, _ in buckets])
        return torch.cat(parts)[torch.argsort(order)]


def length_buckets(attention_mask: torch.Tensor) -> list[tuple[torch.Tensor, int]] | None:
    """``(row indices, length)`` per bucket of a right-padded batch sorted by length, or None for one forward
    (too few rows for two buckets, or no padding to cut)."""
    lengths = attention_mask.sum(dim=1)
    count = min(MAX_BUCKETS, len(lengths) // BUCKET_ROWS)
    if count < 2 or int(lengths.min()) == attention_mask.shape[1]:
        return None
    order = torch.argsort(lengths, stable=True)
    return [(index, max(1, int(lengths[index].max()))) for index in torch.tensor_split(order, count)]


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

    Same mask: the single view is used twice, ``z2 = z1`` (SimCSE#36).
    """
    flat = [text for group in groups for text in group]
    z = towers(encoder.tokenize(flat, max_length=max_len))
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
    optimizer = torch.optim.AdamW(towers.parameters(), lr=config.lr, weight_decay=0.0)
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
