"""Poolers: how a transformer's token states become one sentence vector.

Names and semantics follow SimCSE's ``Pooler`` (Gao et al. 2021, princeton-nlp/SimCSE ``simcse/models.py``
and ``evaluation.py``):

- ``cls``: the [CLS] state followed by an MLP (Linear(h, h) + Tanh). The MLP is ours when the encoder has one
  (``Encoder.mlp``), else the model's own pooler output (BERT's dense + tanh; the released sup-SimCSE
  checkpoints saved their MLP there). Kept at inference.
- ``cls_before_pooler``: the raw [CLS] state (unsup-SimCSE evaluation; MLP used in training only).
- ``avg``: attention-masked mean of the last layer (sentence-transformers' mean pooling, Reimers & Gurevych
  2019).
- ``avg_first_last``: masked mean of (first layer + last layer) / 2. "First layer" is ``hidden_states[1]``,
  the first transformer layer, as in SimCSE's ``evaluation.py`` (its ``models.py`` uses ``hidden_states[0]``,
  the embedding output; we follow the evaluation script).
- ``avg_top2``: masked mean of (last two layers) / 2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from engine.core.errors import ConfigError


@dataclass(frozen=True)
class PoolerSpec:
    """One pooling strategy: ``fn(model_output, attention_mask) -> (B, h)`` before any MLP."""

    name: str
    description: str
    fn: Callable[[object, torch.Tensor], torch.Tensor]
    keeps_mlp: bool = False
    needs_hidden_states: bool = False


def masked_mean(states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Mean of token states over real tokens: sum_t m_t h_t / max(sum_t m_t, 1e-9) (sentence-transformers)."""
    mask = attention_mask.unsqueeze(-1).to(states.dtype)
    summed = (states * mask).sum(dim=1)
    count = mask.sum(dim=1).clamp(min=1e-9)
    return summed / count


def _hidden_states(output: object) -> tuple[torch.Tensor, ...]:
    states = getattr(output, "hidden_states", None)
    if states is None or len(states) < 2:
        raise ConfigError(
            "this pooling needs the model's hidden states (call the model with output_hidden_states)"
        )
    return states


def _cls(output: object, attention_mask: torch.Tensor) -> torch.Tensor:
    return output.last_hidden_state[:, 0]


def _avg(output: object, attention_mask: torch.Tensor) -> torch.Tensor:
    return masked_mean(output.last_hidden_state, attention_mask)


def _avg_first_last(output: object, attention_mask: torch.Tensor) -> torch.Tensor:
    states = _hidden_states(output)
    return masked_mean((states[1] + states[-1]) / 2.0, attention_mask)


def _avg_top2(output: object, attention_mask: torch.Tensor) -> torch.Tensor:
    states = _hidden_states(output)
    return masked_mean((states[-2] + states[-1]) / 2.0, attention_mask)


POOLERS: dict[str, PoolerSpec] = {
    "cls": PoolerSpec(
        "cls", "[CLS] state + MLP (Linear+Tanh), MLP kept at inference (sup-SimCSE)", _cls, keeps_mlp=True
    ),
    "cls_before_pooler": PoolerSpec(
        "cls_before_pooler", "raw [CLS] state, no MLP at inference (unsup-SimCSE evaluation)", _cls
    ),
    "avg": PoolerSpec("avg", "attention-masked mean of the last layer (sentence-transformers mean)", _avg),
    "avg_first_last": PoolerSpec(
        "avg_first_last", "masked mean of (first + last layer) / 2", _avg_first_last, needs_hidden_states=True
    ),
    "avg_top2": PoolerSpec(
        "avg_top2", "masked mean of (last two layers) / 2", _avg_top2, needs_hidden_states=True
    ),
}


def check_pooling(name: str) -> str:
    """Return ``name`` when it is a known pooler (``-`` accepted for ``_``), else raise ConfigError."""
    key = str(name).strip().lower().replace("-", "_")
    if key not in POOLERS:
        raise ConfigError(f"unknown pooling {name!r}: choose one of {', '.join(POOLERS)}")
    return key


def make_mlp(hidden: int) -> nn.Module:
    """SimCSE's ``MLPLayer``: Linear(h, h) followed by Tanh, freshly initialised."""
    if int(hidden) < 1:
        raise ConfigError(f"MLP hidden size must be positive, got {hidden}")
    return nn.Sequential(nn.Linear(int(hidden), int(hidden)), nn.Tanh())
