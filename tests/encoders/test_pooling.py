"""Poolers on hand-checked tensors: masked means, first/last layers, [CLS], the MLP."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from engine.core.errors import ConfigError
from engine.encoders.pooling import POOLERS, check_pooling, make_mlp, masked_mean


@pytest.fixture
def output():
    # batch 2, length 3, hidden 2; layers: embeddings, layer 1, layer 2 (= 10 x layer 1), layer 3 (= last)
    emb = torch.zeros(2, 3, 2)
    first = torch.tensor([[[1.0, 1.0], [3.0, 3.0], [100.0, 100.0]], [[2.0, 0.0], [50.0, 50.0], [50.0, 50.0]]])
    last = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 9.0]]])
    mid = first * 10
    return SimpleNamespace(last_hidden_state=last, hidden_states=(emb, first, mid, last), pooler_output=None)


MASK = torch.tensor([[1, 1, 0], [1, 0, 0]])


def test_registry_names_and_specs() -> None:
    assert set(POOLERS) == {"cls", "cls_before_pooler", "avg", "avg_first_last", "avg_top2"}
    assert POOLERS["cls"].keeps_mlp and not POOLERS["cls_before_pooler"].keeps_mlp
    assert POOLERS["avg_top2"].needs_hidden_states and all(p.description for p in POOLERS.values())


def test_avg_is_masked_mean(output) -> None:
    got = POOLERS["avg"].fn(output, MASK)
    assert torch.allclose(got, torch.tensor([[2.0, 3.0], [5.0, 6.0]]))
    assert torch.allclose(masked_mean(output.last_hidden_state, MASK), got)


def test_cls_takes_first_token(output) -> None:
    for name in ("cls", "cls_before_pooler"):
        assert torch.equal(POOLERS[name].fn(output, MASK), output.last_hidden_state[:, 0])


def test_avg_first_last_uses_first_layer_and_last(output) -> None:
    got = POOLERS["avg_first_last"].fn(output, MASK)
    # row 0: mean over its 2 real tokens of (layer1 + last) / 2; row 1: its single real token
    want = torch.tensor([[(1 + 1 + 3 + 3) / 4, (1 + 2 + 3 + 4) / 4], [(2 + 5) / 2, (0 + 6) / 2]])
    assert torch.allclose(got, want)


def test_avg_top2_uses_last_two_layers(output) -> None:
    got = POOLERS["avg_top2"].fn(output, MASK)
    want = torch.tensor([[(10 + 1 + 30 + 3) / 4, (10 + 2 + 30 + 4) / 4], [(20 + 5) / 2, (0 + 6) / 2]])
    assert torch.allclose(got, want)


def test_hidden_states_required(output) -> None:
    output.hidden_states = None
    with pytest.raises(ConfigError):
        POOLERS["avg_top2"].fn(output, MASK)


def test_all_padding_row_gives_zeros_not_nan() -> None:
    states = torch.ones(1, 2, 3)
    assert torch.equal(masked_mean(states, torch.zeros(1, 2)), torch.zeros(1, 3))


def test_make_mlp_is_linear_tanh() -> None:
    mlp = make_mlp(4)
    assert isinstance(mlp[0], torch.nn.Linear) and isinstance(mlp[1], torch.nn.Tanh)
    x = torch.randn(3, 4)
    assert torch.allclose(mlp(x), torch.tanh(x @ mlp[0].weight.T + mlp[0].bias))
    with pytest.raises(ConfigError):
        make_mlp(0)


def test_check_pooling() -> None:
    assert check_pooling("CLS-before-pooler") == "cls_before_pooler"
    with pytest.raises(ConfigError, match="unknown pooling"):
        check_pooling("max")
