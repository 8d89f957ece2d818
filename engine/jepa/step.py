"""One JEPA training step:

    views (augmentations.py) → online forward of context and target texts (the training core's ``Towers``:
    length buckets on a CPU, planned once on the host for both encoders; one forward on an accelerator)
    → predictor → target embeddings (EMA copy, no grad; or the online ones, detached unless stop_grad off)
    → loss ½[D(g(f_θ(x′)), f_ξ(x″)) + D(g(f_θ(x″)), f_ξ(x′))] + regulariser, D = 2 − 2 cos
      (``--no-symmetric``: D(g(f_θ(x′)), f_ξ(x″)) alone; with an EMA target and no regulariser the online
      encoder then reads only the context x′ and the target copy only the sentence x″: :func:`one_way_loss`)
    → AdamW (linear decay; the predictor at ``predictor_lr_scale`` × lr) → EMA update of the target

- The online encoder, its pooler and dropout, the precision, the optimiser and the DDP wrapping are the
  training core's (:mod:`engine.training.trainer`, :mod:`engine.training.distributed`). The target encoder is
  a copy of the online one, never trained: ξ ← m ξ + (1 − m) θ after each step with m on BYOL's cosine
  schedule (:mod:`engine.jepa.networks`). Its transformer runs in eval mode, without dropout, as data2vec's
  EMA teacher (Baevski et al. 2022); ``target_dropout`` keeps it in training mode, with the online encoder's
  dropout, as BYOL's target.
- EMA 0: no copy; the target embeddings are the online ones of the same forward (SimSiam), detached when
  ``stop_grad`` (else the gradient flows through both branches: the collapse case).
- Distributed: the prediction loss is per sentence, so each rank's mean over its share gives, averaged by
  DDP, the global gradient; the regulariser (batch statistics) is computed on the all-gathered embeddings and
  back-propagated × N, as SimCSE's loss (:mod:`engine.training.distributed`); the logged loss is the global
  batch's. The predictor's batch normalisation normalises each rank's share (as BYOL's per-device batch
  norm when not synchronised), so with a predictor N processes differ slightly from one; without it they
  train alike (tests/jepa/test_distributed.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch
from torch import nn

from engine.compute.device import autocast
from engine.jepa.augmentations import context_view
from engine.jepa.config import JEPAConfig
from engine.jepa.losses import prediction_loss, regulariser_loss
from engine.jepa.networks import Predictor, ema_update, momentum
from engine.training import distributed
from engine.training.augment import step_rng
from engine.training.distributed import unwrapped
from engine.training.towers import Towers, tokenize
from engine.training.trainer import EncoderTrainer, build_trainer


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
    target texts (``lengths``: its rows' token counts on the host, :func:`engine.training.towers.tokenize`).
    The regulariser enters the first × the world size (see the module docstring)."""
    world = world or distributed.World()
    with autocast(device, precision=config.precision):
        z, p = online(batch, lengths)
    if target is not None:
        with torch.no_grad(), autocast(device, precision=config.precision):
            t = target(batch, lengths)
    else:
        t = z.detach() if config.stop_grad else z
    z_ctx, z_tgt, p_ctx, p_tgt, t_ctx, t_tgt = (*z.split(rows), *p.split(rows), *t.split(rows))
    predicted = prediction_loss(p_ctx, t_tgt)
    if config.symmetric:
        predicted = (predicted + prediction_loss(p_tgt, t_ctx)) / 2
    z_ctx, z_tgt = (distributed.gather_with_grad(part, world) for part in (z_ctx, z_tgt))
    regular = regulariser_loss(config, z_ctx, z_tgt, seed)
    return predicted + world.size * regular, global_mean(predicted.detach(), world) + regular.detach()


def one_way_loss(
    config: JEPAConfig,
    online: nn.Module,
    target: nn.Module,
    context: tuple[Any, torch.Tensor | None],
    sentences: tuple[Any, torch.Tensor | None],
    device: torch.device,
    world: distributed.World | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss to back-propagate, loss to log) of a one-way step (:attr:`JEPAConfig.one_way`):
    D(g(f_θ(x′)), f_ξ(x″)), the tokenised context views ``(batch, lengths)`` through the online encoder and
    predictor, the tokenised sentences through the EMA target copy only (I-JEPA's direction)."""
    world = world or distributed.World()
    with autocast(device, precision=config.precision):
        _, prediction = online(*context)
    with torch.no_grad(), autocast(device, precision=config.precision):
        aim = target(*sentences)
    predicted = prediction_loss(prediction, aim)
    return predicted, global_mean(predicted.detach(), world)


def global_mean(loss: torch.Tensor, world: distributed.World) -> torch.Tensor:
    """The logged loss of the global batch: the mean of the ranks' equal shares (``loss`` itself on one)."""
    if world.distributed:
        torch.distributed.all_reduce(loss)
        loss = loss / world.size
    return loss


@dataclass
class Trainer(EncoderTrainer):
    """Everything one JEPA step needs (the trained modules: the :class:`Online` encoder and predictor);
    :meth:`step` is the whole update."""

    target: Towers | None
    mask_token: str

    @classmethod
    def build(
        cls, config: JEPAConfig, encoder: Any, use_mlp: bool, device: torch.device
    ) -> tuple[nn.Module, list, dict[str, Any]]:
        """The online encoder and the predictor, their parameter groups (the predictor at
        ``predictor_lr_scale`` × lr), the target copy and the mask token."""
        torch.manual_seed(config.seed)  # the predictor's initialisation: the same on every rank
        predictor = (
            Predictor(encoder.hidden_size, config.predictor_hidden).to(device) if config.predictor else None
        )
        target = None
        if config.uses_target_copy:
            target = Towers(copy_encoder(encoder), use_mlp).requires_grad_(False)
            target.model.train(config.target_dropout)  # the transformer's dropout; the pooling has none
        online = Online(Towers(encoder, use_mlp), predictor)
        groups = [{"params": list(online.towers.parameters()), "lr": config.lr}]
        if predictor is not None:
            groups.append(
                {"params": list(predictor.parameters()), "lr": config.lr * config.predictor_lr_scale}
            )
        tokenizer = encoder.tokenizer
        mask = getattr(tokenizer, "mask_token", None) or getattr(tokenizer, "unk_token", None) or "[MASK]"
        return online, groups, {"target": target, "mask_token": mask}

    @property
    def online(self) -> nn.Module:
        """The online encoder and the predictor (DDP-wrapped when distributed)."""
        return self.module

    def step(self, step: int) -> float:
        """Views of batch ``step`` → losses → AdamW update → EMA update; returns the logged loss."""
        config = self.config
        texts = [self.data[i] for i in self.sampler(step)]
        context = context_view(texts, config, step_rng(config.seed, step), self.mask_token)
        context, texts = context[self.share], texts[self.share]
        towers = unwrapped(self.online).towers
        if config.one_way:
            views, sentences = (
                tokenize(towers, self.encoder, part, config.max_len) for part in (context, texts)
            )
            loss, logged = one_way_loss(
                config, self.online, self.target, views, sentences, self.device, self.world
            )
        else:
            batch, lengths = tokenize(towers, self.encoder, context + texts, config.max_len)
            seed = config.seed * 1_000_003 + step
            loss, logged = jepa_loss(
                config, self.online, self.target, batch, len(texts), self.device, self.world, seed, lengths
            )
        self.update(loss)
        if self.target is not None:
            ema_update(self.target, towers, momentum(config.ema, step, config.steps))
        return float(logged)


#: ``make_trainer(config, data, world=None, device=None)``: online encoder (the training core's build),
#: predictor, target copy, DDP wrapper, AdamW with linear decay (the predictor at ``predictor_lr_scale`` × lr)
#: (:func:`engine.training.trainer.build_trainer`, :meth:`Trainer.build`)
make_trainer = partial(build_trainer, Trainer)
