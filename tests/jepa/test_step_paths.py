"""The fast paths of a JEPA step (issue 38): the EMA update as one multi-tensor lerp equals ξ·m + (1 − m)·θ,
and a step run as length buckets (CPU) trains as one run with one forward (CUDA, MPS): losses to 1e-5
relative, weights to 1e-5 absolute after 3 steps (float32, dropout 0)."""

from __future__ import annotations

import pytest
import torch

import engine.training.towers as towers
from engine.jepa.networks import ema_update
from engine.jepa.step import make_trainer, unwrapped
from engine.training.data import load_training


def test_ema_update_is_the_momentum_average() -> None:
    torch.manual_seed(0)
    online, target = torch.nn.Linear(5, 3), torch.nn.Linear(5, 3)
    online.register_buffer("ids", torch.arange(4))
    target.register_buffer("ids", torch.zeros(4, dtype=torch.long))
    expected = [
        0.9 * xi + 0.1 * theta for xi, theta in zip(target.parameters(), online.parameters(), strict=True)
    ]
    ema_update(target, online, 0.9)
    for got, want in zip(target.parameters(), expected, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)
    assert target.ids.tolist() == [0, 1, 2, 3]
    assert all(p.grad is None for p in target.parameters())
    with pytest.raises(ValueError, match="tensors"):
        ema_update(target, torch.nn.Linear(5, 3, bias=False), 0.9)


def test_buckets_and_one_forward_train_alike(jepa_config, monkeypatch: pytest.MonkeyPatch) -> None:
    config = jepa_config(dropout=0.0, batch_size=48, steps=3, ema=0.9, predictor=True)
    data = load_training(config)
    monkeypatch.setattr(towers, "BUCKET_MIN_WIDTH", 0)  # the test encoder (width 32) buckets too
    bucketed = make_trainer(config, data)
    monkeypatch.setattr(towers, "MAX_BUCKETS", 1)  # bucket_limit reads it when the towers are built
    single = make_trainer(config, data)
    assert unwrapped(bucketed.online).towers.max_buckets > 1 and bucketed.target.max_buckets > 1
    assert unwrapped(single.online).towers.max_buckets == 1 and single.target.max_buckets == 1
    for step in range(1, config.steps + 1):
        assert bucketed.step(step) == pytest.approx(single.step(step), rel=1e-5)
    for mine, theirs in ((bucketed.encoder.model, single.encoder.model), (bucketed.target, single.target)):
        for a, b in zip(mine.parameters(), theirs.parameters(), strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-5)
