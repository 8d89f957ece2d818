"""One SimCSE training step (Gao, Yao & Chen 2021; princeton-nlp/SimCSE ``cl_forward``):

    views (augmentations.py) → one forward of all views (:class:`~engine.training.towers.Towers`) → all-gather
    (:mod:`engine.training.distributed`) → loss (losses.py) → AdamW step with linear decay

- the pooler (``cls``: [CLS] + MLP in training, raw [CLS] at evaluation, the unsup default; ``cls-mlp``: the
  MLP is kept; ``avg``: masked mean, no MLP) and the dropout are set by :mod:`engine.training.encoder`;
- AdamW without weight decay and a linear decay to 0 without warm-up (Hugging Face Trainer defaults), fused
  on CUDA, for-each on a CPU (:mod:`engine.training.trainer`);
- ``precision="auto"``: the encoder's forward in bf16 autocast on CUDA (fp16 where bf16 is missing) and on
  CPUs with native bf16 (AVX512-BF16 / AMX), never fp16 on a CPU (SimCSE#273); the loss and the weight
  updates stay float32; ``precision="fp32"`` turns autocast off (:mod:`engine.compute.device`);
- on a CPU the training forward runs a batch as a few length buckets (:mod:`engine.training.towers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch
from torch import nn

from engine.compute.device import autocast
from engine.simcse.augmentations import ViewPlan, plan_of
from engine.simcse.config import SimCSEConfig
from engine.simcse.losses import sup_loss, unsup_loss
from engine.training import distributed
from engine.training.augment import step_rng
from engine.training.towers import Towers, tokenize
from engine.training.trainer import EncoderTrainer, build_trainer


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
class Trainer(EncoderTrainer):
    """Everything one SimCSE step needs (the trained modules: the :class:`Towers`); :meth:`step` is the
    whole update."""

    plan: ViewPlan

    @classmethod
    def build(
        cls, config: SimCSEConfig, encoder: Any, use_mlp: bool, device: torch.device
    ) -> tuple[nn.Module, None, dict[str, Any]]:
        """The encoder's towers (pooler, MLP, dropout), all at the config's lr; the config's view plan."""
        return Towers(encoder, use_mlp), None, {"plan": plan_of(config)}

    def step(self, step: int) -> float:
        """Views of batch ``step`` → forward → all-gather → loss → AdamW update; returns the loss."""
        config = self.config
        groups = view_groups(
            self.data, self.sampler(step), self.plan, step_rng(config.seed, step), config.mode
        )
        groups = [group[self.share] for group in groups]
        with autocast(self.device, precision=config.precision):
            zs = encode_views(self.module, self.encoder, groups, self.plan, config.max_len)
        zs = [distributed.gather_with_grad(z, self.world) for z in zs]
        loss = contrastive_loss(zs, config)
        self.update(loss * self.world.size)  # DDP averages: x N gives the global gradient
        return float(loss.detach())


#: ``make_trainer(config, data, world=None, device=None)``: encoder (pooler, MLP, dropout), DDP wrapper, AdamW
#: (no weight decay) with linear decay, sampler (:func:`engine.training.trainer.build_trainer`); the trained
#: modules are the encoder's towers (:meth:`Trainer.build`)
make_trainer = partial(build_trainer, Trainer)
