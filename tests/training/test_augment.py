"""The word augmentations do what they say (SimCSE Table 1), seeded per step (engine.training.augment)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.training import augment
from engine.training.augment import augment_texts, step_rng

SENTENCE = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "today"]


@pytest.mark.parametrize("seed", range(20))
def test_delete_one_word_removes_exactly_one(seed: int) -> None:
    out = augment.delete_one_word(SENTENCE, 0.0, np.random.default_rng(seed))
    assert len(out) == len(SENTENCE) - 1
    # removing one word: out is SENTENCE with one position skipped
    assert any(SENTENCE[:i] + SENTENCE[i + 1 :] == out for i in range(len(SENTENCE)))


def test_delete_one_word_keeps_single_word() -> None:
    assert augment.delete_one_word(["alone"], 0.0, np.random.default_rng(0)) == ["alone"]


@pytest.mark.parametrize("rate,kept", [(0.1, 9), (0.2, 8), (0.3, 7), (0.0, 10)])
def test_crop_keeps_a_contiguous_span(rate: float, kept: int) -> None:
    for seed in range(10):
        out = augment.crop(SENTENCE, rate, np.random.default_rng(seed))
        assert len(out) == kept
        starts = [i for i in range(len(SENTENCE)) if SENTENCE[i : i + kept] == out]
        assert starts, out


@pytest.mark.parametrize("rate,removed", [(0.1, 1), (0.2, 2), (0.3, 3), (0.99, 9)])
def test_word_deletion_rate(rate: float, removed: int) -> None:
    out = augment.word_deletion(SENTENCE, rate, np.random.default_rng(1))
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
