"""The view switches do what they say (SimCSE Tables 1 and 3)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from engine.simcse import views
from engine.simcse.views import (
    FIGURE2_RUNS,
    PAPER_ROWS,
    VIEWS,
    ViewPlan,
    augment_texts,
    set_dropout,
    step_rng,
)

SENTENCE = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "today"]


@pytest.mark.parametrize("seed", range(20))
def test_delete_one_word_removes_exactly_one(seed: int) -> None:
    out = views.delete_one_word(SENTENCE, 0.0, np.random.default_rng(seed))
    assert len(out) == len(SENTENCE) - 1
    # removing one word: out is SENTENCE with one position skipped
    assert any(SENTENCE[:i] + SENTENCE[i + 1 :] == out for i in range(len(SENTENCE)))


def test_delete_one_word_keeps_single_word() -> None:
    assert views.delete_one_word(["alone"], 0.0, np.random.default_rng(0)) == ["alone"]


@pytest.mark.parametrize("rate,kept", [(0.1, 9), (0.2, 8), (0.3, 7), (0.0, 10)])
def test_crop_keeps_a_contiguous_span(rate: float, kept: int) -> None:
    for seed in range(10):
        out = views.crop(SENTENCE, rate, np.random.default_rng(seed))
        assert len(out) == kept
        starts = [i for i in range(len(SENTENCE)) if SENTENCE[i : i + kept] == out]
        assert starts, out


@pytest.mark.parametrize("rate,removed", [(0.1, 1), (0.2, 2), (0.3, 3), (0.99, 9)])
def test_word_deletion_rate(rate: float, removed: int) -> None:
    out = views.word_deletion(SENTENCE, rate, np.random.default_rng(1))
    assert len(out) == len(SENTENCE) - removed
    it = iter(SENTENCE)
    assert all(word in it for word in out)  # a subsequence: order kept


def test_augmentation_is_seeded_per_step() -> None:
    texts = [" ".join(SENTENCE)] * 5
    a = augment_texts(texts, "word-deletion", 0.3, step_rng(0, 3))
    b = augment_texts(texts, "word-deletion", 0.3, step_rng(0, 3))
    c = augment_texts(texts, "word-deletion", 0.3, step_rng(0, 4))
    assert a == b and a != c
    assert augment_texts(texts, "none", 0.3, step_rng(0, 3)) == texts


def test_second_view_only_is_augmented() -> None:
    plan = ViewPlan(augment="delete-one-word")
    texts = [" ".join(SENTENCE)]
    assert len(plan.second_view(texts, step_rng(0, 1))[0].split()) == len(SENTENCE) - 1
    assert not plan.one_forward and ViewPlan(same_mask=True).one_forward


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


def test_registry_entries_are_documented_and_map_to_config_fields() -> None:
    from engine.simcse.train import SimCSEConfig

    for name, switch in VIEWS.items():
        assert switch.name == name and switch.explanation and "\n" not in switch.explanation
        SimCSEConfig(**switch.overrides())  # every switch is a valid config on its own
    assert VIEWS["crop"].overrides(k=0.2) == {"augment": "crop", "augment_rate": 0.2}
    assert VIEWS["dropout"].overrides(p=0.0) == {"dropout": 0.0}


def test_paper_rows_are_expressible() -> None:
    from engine.simcse.train import SimCSEConfig

    assert list(FIGURE2_RUNS) == ["unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word"]
    for name, row in PAPER_ROWS.items():
        assert SimCSEConfig(**row["overrides"]).mode == "unsup"
        assert isinstance(row["paper"], float), name
    no_drop = SimCSEConfig(**PAPER_ROWS["delete-one-word-no-dropout"]["overrides"])
    assert no_drop.dropout == 0.0 and no_drop.augment == "delete-one-word"
    assert SimCSEConfig(**FIGURE2_RUNS["fixed-0.1"]).same_mask
