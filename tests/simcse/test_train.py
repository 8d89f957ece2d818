"""SimCSE training: settings, views in the real forward path, a short run, save/load, the summary."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.compute.device import autocast
from engine.core.errors import ConfigError
from engine.runlog.events import Points, Row
from engine.simcse.augmentations import plan_of
from engine.simcse.config import SimCSEConfig
from engine.simcse.step import encode_views
from engine.simcse.train import summarize, train_simcse
from engine.training.data import load_eval
from engine.training.encoder import build_encoder
from engine.training.towers import Towers


@pytest.mark.parametrize(
    "overrides",
    [
        {"mode": "both"},
        {"dropout": 1.5},
        {"dropout": -0.1},
        {"steps": 0},
        {"batch_size": 1},
        {"lr": 0.0},
        {"lr": float("nan")},
        {"temp": 0},
        {"hard_negative_weight": 0.0},
        {"eval_every": 0},
        {"augment": "synonyms"},
        {"augment_rate": 0.95},
        {"pooler": "max"},
        {"same_mask": True, "augment": "crop"},
        {"mode": "sup", "augment": "delete-one-word"},
        {"mode": "sup", "same_mask": True},
        {"save_encoder": "../.."},
        {"eval_limit": 1},
        {"steps": True},
    ],
)
def test_bad_settings_raise_one_line_config_errors(overrides: dict) -> None:
    with pytest.raises(ConfigError) as info:
        SimCSEConfig(**overrides)
    assert "\n" not in str(info.value) and str(info.value)


def test_metric_columns_have_probe_columns_only_with_a_probe() -> None:
    plain = SimCSEConfig().metric_columns()
    assert plain[:6] == ["step", "loss", "alignment", "uniformity", "sts_spearman", "isoscore"]
    assert "probe_silhouette" not in plain and "seconds" in plain
    assert {"probe_silhouette", "probe_isoscore"} <= set(SimCSEConfig(probe="demo").metric_columns())


def test_batch_larger_than_the_data_is_a_config_error(tiny_config) -> None:
    with pytest.raises(ConfigError, match="larger than"):
        list(train_simcse(tiny_config(train_limit=10, batch_size=16)))


def _views(config: SimCSEConfig, texts: list[str]) -> list[torch.Tensor]:
    torch.manual_seed(0)
    encoder, use_mlp = build_encoder(config, torch.device("cpu"))
    towers = Towers(encoder, use_mlp)
    groups = [texts] if config.same_mask else [texts, list(texts)]
    with torch.no_grad():
        return encode_views(towers, encoder, groups, plan_of(config), config.max_len)


TEXTS = ["a cat sat on the mat", "stocks fell sharply on monday", "the match ended in a draw", "rain is due"]


def test_no_dropout_gives_identical_views(tiny_config) -> None:
    z1, z2 = _views(tiny_config(dropout=0.0), TEXTS)
    assert torch.equal(z1, z2)


def test_same_mask_gives_identical_views_with_dropout_on(tiny_config) -> None:
    z1, z2 = _views(tiny_config(dropout=0.1, same_mask=True), TEXTS)
    assert torch.equal(z1, z2)


def test_dropout_gives_different_views(tiny_config) -> None:
    z1, z2 = _views(tiny_config(dropout=0.1), TEXTS)
    assert not torch.allclose(z1, z2)
    assert z1.shape == (len(TEXTS), 32)


def test_eval_set_subset_is_seeded(tiny_config) -> None:
    a, b = load_eval(tiny_config(eval_limit=30)), load_eval(tiny_config(eval_limit=30))
    assert len(a.left) == 30 and np.array_equal(a.gold, b.gold)
    assert len(a.sentences) <= 60 and max(a.left.max(), a.right.max()) < len(a.sentences)


def test_short_run_lowers_the_loss_and_logs_every_step(tiny_config) -> None:
    config = tiny_config(steps=16, eval_every=8, probe="demo", probe_limit=60, snapshot_every=8, dropout=0.1)
    events = list(train_simcse(config))
    rows = [e for e in events if isinstance(e, Row)]
    assert [r.step for r in rows] == list(range(17))
    losses = [r.get("loss") for r in rows[1:]]
    assert np.mean(losses[-4:]) < np.mean(losses[:4])
    evaluated = [r.step for r in rows if r.get("sts_spearman") is not None]
    assert evaluated == [0, 8, 16]
    for r in rows:
        if r.step in evaluated:
            assert -4.0 <= r.get("uniformity") <= 0.0 and 0.0 <= r.get("alignment") <= 4.0
            assert r.get("probe_silhouette") is not None and r.get("eval_seconds") > 0
    points = [e for e in events if isinstance(e, Points)]
    assert len(points) == 1 and len(points[0].texts) == 60
    assert [r.snapshot.shape for r in rows if r.snapshot is not None] == [(60, 32)] * 3
    summary = summarize([r.record(config.metric_columns()) for r in rows], config)
    assert summary["loss_last10"] < summary["loss_first"] + 1.0
    assert summary["eval_overhead"] is not None and summary["views"] == "dropout 0.1"


def test_stop_ends_the_run_within_a_step(tiny_config) -> None:
    stop = threading.Event()
    rows = []
    for event in train_simcse(tiny_config(steps=50), stop):
        if isinstance(event, Row):
            rows.append(event)
            if event.step == 2:
                stop.set()
    assert rows[-1].step == 2


def test_stop_during_evaluation_returns_promptly(tiny_config, monkeypatch) -> None:
    from engine.training import evaluation

    stop = threading.Event()
    real = evaluation.Evaluator._encode

    def stopped_while_encoding(self, tokens, flag, progress=None):
        stop.set()  # ■ Stop pressed as the first evaluation starts
        return real(self, tokens, flag, progress)

    monkeypatch.setattr(evaluation.Evaluator, "_encode", stopped_while_encoding)
    rows = [e for e in train_simcse(tiny_config(steps=50), stop) if isinstance(e, Row)]
    assert [r.step for r in rows] == [0] and rows[0].get("sts_spearman") is None


def test_a_stop_during_set_up_logs_no_step(tiny_config) -> None:
    stop = threading.Event()
    stop.set()
    assert [e for e in train_simcse(tiny_config(steps=50), stop) if isinstance(e, Row)] == []


def test_sup_run_on_demo_triples(tiny_config) -> None:
    rows = [
        e
        for e in train_simcse(tiny_config(mode="sup", train="demo-nli", steps=3, hard_negative_weight=2.0))
        if isinstance(e, Row)
    ]
    assert len(rows) == 4 and all(np.isfinite(r.get("loss")) for r in rows[1:])


def test_saved_encoder_loads_back_with_identical_embeddings(tiny_config, own_cache: Path) -> None:
    from engine.encoders import list_encoders, load_encoder

    config = tiny_config(steps=3, eval_every=3, snapshot_every=3, save_encoder="tiny-simcse", augment="crop")
    rows = [e for e in train_simcse(config) if isinstance(e, Row)]
    final = rows[-1].snapshot  # the trained encoder's embeddings of the evaluation sentences
    loaded = load_encoder("tiny-simcse", device="cpu")
    assert loaded.pooling == "cls_before_pooler" and loaded.mlp is not None
    with autocast(torch.device("cpu"), precision=config.precision):  # the evaluation's precision (bf16 here)
        again = loaded.encode(load_eval(config).sentences, batch_size=128)
    np.testing.assert_allclose(again, final, rtol=1e-5, atol=1e-6)
    info = {e.name: e for e in list_encoders()}["tiny-simcse"]
    assert info is not None
