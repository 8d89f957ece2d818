"""The encoder a run trains (engine.training.encoder): dropout set everywhere, the pooler resolved."""

from __future__ import annotations

import torch
from torch import nn

from engine.training.encoder import resolve_pooler, set_dropout


def _tiny_bert(p: float = 0.1) -> nn.Module:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=20,
        max_position_embeddings=16,
        hidden_dropout_prob=p,
        attention_probs_dropout_prob=p,
    )
    return BertModel(config).train()


def test_set_dropout_reaches_every_dropout_and_the_config() -> None:
    model = _tiny_bert(0.1)
    count = set_dropout(model, 0.0)
    assert count > 0
    assert all(m.p == 0.0 for m in model.modules() if isinstance(m, nn.Dropout))
    assert model.config.hidden_dropout_prob == 0.0 and model.config.attention_probs_dropout_prob == 0.0
    ids = torch.randint(0, 50, (4, 8))
    assert torch.equal(model(ids).last_hidden_state, model(ids).last_hidden_state)  # train mode, p = 0
    set_dropout(model, 0.3)
    assert not torch.allclose(model(ids).last_hidden_state, model(ids).last_hidden_state)


def test_a_named_pooler_is_itself() -> None:
    assert [resolve_pooler(name) for name in ("cls", "cls-mlp", "avg")] == ["cls", "cls-mlp", "avg"]
