"""The encoder a run trains: loaded with the pooling of its pooler, a fresh MLP where training needs one, and
the views' dropout rate set everywhere.

An encoder is trained with one pooling; pooling it otherwise handicaps it before any training step (the
bundled all-MiniLM-L6-v2 is a mean-pooling model). The pooler ``native``
(:data:`~engine.core.shared_knobs.NATIVE`) is therefore the encoder's own pooling, read from its configuration
(:func:`engine.encoders.loading.native_pooling`: the sentence-transformers ``1_Pooling/config.json``, a saved
encoder's ``embedlab.json``, a SimCSE checkpoint's name), mapped to the poolers by :data:`NATIVE_TO_POOLER`;
an encoder that declares none (a BERT-like checkpoint) gets ``cls``, SimCSE's BERT setting (Gao, Yao & Chen
2021, Sec. 3). The poolers (:data:`~engine.core.shared_knobs.POOLER_CHOICES`):

- ``cls``: [CLS] + MLP in training, raw [CLS] at evaluation (SimCSE's ``--mlp_only_train``);
- ``cls-mlp``: the MLP is kept; ``avg``: masked mean, no MLP.

``dropout`` sets the rate of every ``nn.Dropout`` of the encoder (hidden and attention dropout; BERT's
attention reads ``self.dropout.p`` at call time) and the config fields ``hidden_dropout_prob`` /
``attention_probs_dropout_prob`` (and ``attention_dropout`` / ``dropout`` where a model has them).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from engine.core.shared_knobs import NATIVE, POOLER_CHOICES
from engine.training.config import TrainingConfig

#: an encoder's declared inference pooling -> the pooler that keeps it
NATIVE_TO_POOLER = {"avg": "avg", "cls_before_pooler": "cls", "cls": "cls-mlp"}
#: the pooler of an encoder that declares none: SimCSE's BERT setting
UNDECLARED_POOLER = "cls"


def resolve_pooler(pooler: str, encoder: str | None = None) -> str:
    """``pooler`` itself, or for ``native`` the pooler of ``encoder``'s own pooling (module doc)."""
    if pooler != NATIVE:
        return pooler
    from engine.encoders.loading import native_pooling

    declared = native_pooling(encoder)
    return NATIVE_TO_POOLER.get(declared or "", UNDECLARED_POOLER)


_FLOAT_DROPOUT_ATTRS = (
    "attention_dropout",
    "dropout_prob",
    "attention_probs_dropout_prob",
    "hidden_dropout_prob",
)
_CONFIG_DROPOUT_FIELDS = (
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "attention_dropout",
    "dropout",
)


def set_dropout(model: nn.Module, p: float) -> int:
    """Set every dropout of ``model`` (modules, float attributes, config fields) to ``p``; return #modules."""
    count = 0
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = float(p)
            count += 1
        for name in _FLOAT_DROPOUT_ATTRS:
            if isinstance(getattr(module, name, None), float):
                setattr(module, name, float(p))
    config = getattr(model, "config", None)
    for name in _CONFIG_DROPOUT_FIELDS:
        if config is not None and isinstance(getattr(config, name, None), float):
            setattr(config, name, float(p))
    return count


def build_encoder(config: TrainingConfig, device: torch.device) -> tuple[Any, bool]:
    """Load the encoder with the pooling of ``config.pooler`` and a fresh MLP where training needs one;
    returns it in training mode on ``device``, and whether the training forward uses the MLP."""
    from engine.encoders import load_encoder, make_mlp

    pooling, use_mlp = POOLER_CHOICES[resolve_pooler(config.pooler, config.encoder)]
    encoder = load_encoder(config.encoder, pooling=pooling, device=device, max_length=config.max_len)
    if use_mlp and encoder.mlp is None:
        encoder.mlp = make_mlp(encoder.hidden_size)
    set_dropout(encoder.model, config.dropout)
    return encoder.to(device).train(), use_mlp
