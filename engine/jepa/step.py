"""One JEPA training step:

    views (views.py) → online forward of context and target texts (SimCSE's ``Towers``: length buckets on a
    CPU, planned once on the host for both encoders; one forward on an accelerator)
    → predictor → target embeddings (EMA copy, no grad; or the online ones, detached unless stop_grad off)
    → loss ½[D(g(f_θ(x′)), f_ξ(x″)) + D(g(f_θ(x″)), f_ξ(x′))] + regulariser, D = 2 − 2 cos
    → AdamW (linear decay; the predictor at ``predictor_lr_scale`` × lr) → EMA update of the target

- The online encoder, its pooler and dropout, the precision and the DDP wrapping are SimCSE's
  (:mod:`engine.simcse.step`, :mod:`engine.simcse.distributed`). The target encoder is a copy of the online
  one (same dropout, in training mode, as BYOL's target), never trained: ξ ← m ξ + (1 − m) θ after each step
  with m on BYOL's cosine schedule (:mod:`engine.jepa.networks`).
- EMA 0: no copy; the target embeddings are the online ones of the same forward (SimSiam), detached when
  ``stop_grad`` (else the gradient flows through both branches: the collapse case).
- Distributed: the prediction loss is per sentence, so each rank's mean over its share gives, averaged by
  DDP, the global gradient; the regulariser (batch statistics) is computed on the all-gathered embeddings and
  back-propagated × N, as SimCSE's loss (:mod:`engine.simcse.distributed`); the logged loss is the global
  batch's. The predictor's batch normalisation normalises each rank's share (as BYOL's per-device batch
  norm when not synchronised), so with a predictor N processes differ slightly from one; without it they
  train alike (tests/jepa/test_distributed.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from engine.device import autocast, needs_grad_scaler, resolve_device
from engine.jepa.config import JEPAConfig
from engine.jepa.losses import prediction_loss, regulariser_loss
from engine.jepa.networks import Predictor, ema_update, momentum
from engine.jepa.views import context_view
from engine.simcse import distributed
from engine.simcse.datasets import BatchSampler
from engine.simcse.step import Towers, adamw_options, build_encoder, tokenize
from engine.simcse.views import step_rng


class Online(nn.Module):
    """The trained modules behind one ``forward`` (so DDP can wrap them): the encoder's towers and the
    predictor; returns (embeddings z, predictions g(z)) (g(z) = z without a predictor)."""

    def __init__(self, towers: Towers, predictor: Predictor | None):
        super().__init__()
        self.towers = towers
        self.predictor = predictor

    def forward(self, batch: Any, lengths: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.towers(batch, lengths)
        return z, (z if self.predictor is None else self.predictor(z))


def copy_encoder(encoder: Any) -> Any:
    """A deep copy of ``encoder``'s modules sharing its tokenizer (the target encoder's starting point)."""
    return copy.deepcopy(encoder, memo={id(encoder.tokenizer): encoder.tokenizer})


def jepa_loss(
    config: JEPAConfig,
    online: nn.Module,
    target: nn.Module | None,
    batch: Any,
    rows: int,
    device: torch.device,
    world: distributed.World | None = None,
    seed: int = 0,
    lengths: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss to back-propagate, loss to log) of one tokenised batch: ``rows`` context texts then ``rows``
    target texts (``lengths``: its rows' token counts on the host, :func:`engine.simcse.step.tokenize`). The
    regulariser enters the first × the world size (see the module docstring)."""
    world = world or distributed.World()
    with autocast(device, precision=config.precision):
        z, p = online(batch, lengths)
    if target is not None:
        with torch.no_grad(), autocast(device, precision=config.precision):
            t = target(batch, lengths)
    else:
        t = z.detach() if config.stop_grad else z
    z_ctx, z_tgt, p_ctx, p_tgt, t_ctx, t_tgt = (*z.split(rows), *p.split(rows), *t.split(rows))
    predicted = (prediction_loss(p_ctx, t_tgt) + prediction_loss(p_tgt, t_ctx)) / 2
    z_ctx, z_tgt = (distributed.gather_with_grad(part, world) for part in (z_ctx, z_tgt))
    regular = regulariser_loss(config, z_ctx, z_tgt, seed)
    logged = predicted.detach()
    if world.distributed:  # the logged loss is the global batch's: the mean of the ranks' equal shares
        torch.distributed.all_reduce(logged)
        logged = logged / world.size
    return predicted + world.size * regular, logged + regular.detach()


@dataclass
class Trainer:
    """Everything one JEPA step needs; :meth:`step` is the whole update."""

    config: JEPAConfig
    world: distributed.World
    device: torch.device
    data: Any
    encoder: Any
    online: nn.Module
    target: Towers | None
    optimizer: torch.optim.Optimizer
    schedule: Any
    scaler: Any
    sampler: BatchSampler
    share: slice
    mask_token: str

    def step(self, step: int) -> float:
        """Views of batch ``step`` → losses → AdamW update → EMA update; returns the logged loss."""
        config = self.config
        texts = [self.data[i] for i in self.sampler(step)]
        context = context_view(texts, config, step_rng(config.seed, step), self.mask_token)
        context, texts = context[self.share], texts[self.share]
        towers = unwrapped(self.online).towers
        batch, lengths = tokenize(towers, self.encoder, context + texts, config.max_len)
        seed = config.seed * 1_000_003 + step
        loss, logged = jepa_loss(
            config, self.online, self.target, batch, len(texts), self.device, self.world, seed, lengths
        )
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        self.schedule.step()
        if self.target is not None:
            ema_update(self.target, towers, momentum(config.ema, step, config.steps))
        return float(logged)


def unwrapped(module: nn.Module) -> nn.Module:
    """The module inside a DDP wrapper (itself when not wrapped)."""
    return getattr(module, "module", module)


def make_trainer(
    config: JEPAConfig,
    data: Any,
    world: distributed.World | None = None,
    device: torch.device | None = None,
) -> Trainer:
    """Online encoder (SimCSE's build), predictor, target copy, DDP wrapper, AdamW with linear decay."""
    world = world or distributed.World()
    device = device or resolve_device(config.device)
    share = distributed.local_slice(config.batch_size, world)
    encoder, use_mlp = build_encoder(config, device)
    torch.manual_seed(config.seed)  # the predictor's initialisation: the same on every rank
    predictor = (
        Predictor(encoder.hidden_size, config.predictor_hidden).to(device) if config.predictor else None
    )
    target = None
    if config.uses_target_copy:
        target = Towers(copy_encoder(encoder), use_mlp).requires_grad_(False)
    torch.manual_seed(config.seed + world.rank)  # dropout masks differ between ranks
    online = distributed.wrap(Online(Towers(encoder, use_mlp), predictor), world, device)
    groups = [{"params": list(unwrapped(online).towers.parameters()), "lr": config.lr}]
    if predictor is not None:
        groups.append({"params": list(predictor.parameters()), "lr": config.lr * config.predictor_lr_scale})
    optimizer = torch.optim.AdamW(groups, lr=config.lr, weight_decay=0.0, **adamw_options(device))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / config.steps))
    scaler = torch.amp.GradScaler(device.type, enabled=needs_grad_scaler(device, precision=config.precision))
    sampler = BatchSampler(len(data), config.batch_size, config.seed)
    tokenizer = encoder.tokenizer
    mask = getattr(tokenizer, "mask_token", None) or getattr(tokenizer, "unk_token", None) or "[MASK]"
    return Trainer(
        config,
        world,
        device,
        data,
        encoder,
        online,
        target,
        optimizer,
        schedule,
        scaler,
        sampler,
        share,
        mask,
    )
