"""A text far longer than the encoder's window is cut before tokenising (issue 24, item 4): the tokenizer
never sees more than a bounded number of characters, and the embedding is exactly that of the whole text."""

from __future__ import annotations

import numpy as np
import pytest

from engine.encoders.encoder import CHARS_PER_TOKEN, cut_for_window

WORDS = [
    "the",
    "film",
    "was",
    "a",
    "quiet",
    "delight",
    "although",
    "its",
    "second",
    "half",
    "drags",
    "on",
    "and",
    "on",
]


def _long_text(words: int, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    return " ".join(rng.choice(WORDS, size=words).tolist())


def test_the_tokenizer_never_sees_a_huge_text_whole(variant) -> None:
    encoder = variant(max_length=64)
    seen: list[int] = []
    real = encoder.tokenizer

    class Recording:
        def __getattr__(self, name):
            return getattr(real, name)

        def __call__(self, texts, *args, **kwargs):
            seen.extend(len(t) for t in ([texts] if isinstance(texts, str) else texts))
            return real(texts, *args, **kwargs)

    encoder.tokenizer = Recording()
    encoder.encode([_long_text(400_000), "short"])  # about 2.3 million characters
    assert max(seen) <= 64 * CHARS_PER_TOKEN


@pytest.mark.parametrize(("words", "max_length"), [(20_000, 64), (3_000, 128), (40, 64)])
def test_a_cut_text_has_exactly_the_embedding_of_the_whole_text(variant, words: int, max_length: int) -> None:
    encoder = variant(max_length=max_length)
    text = _long_text(words, seed=words)
    cut = cut_for_window(encoder.tokenizer, text, max_length)
    assert text.startswith(cut) and len(cut) <= max(len(text), 0)
    whole = encoder.tokenizer([text], truncation=True, max_length=max_length)["input_ids"]
    assert encoder.tokenizer([cut], truncation=True, max_length=max_length)["input_ids"] == whole
    assert encoder.tokenize([text])["input_ids"].tolist() == whole  # what the model is given
    np.testing.assert_array_equal(encoder.encode([text]), encoder.encode([cut]))


def test_whitespace_runs_longer_than_the_bound_are_still_exact(variant) -> None:
    """Characters that make no token (a long run of spaces) push the cut further, never change the result."""
    encoder = variant(max_length=32)
    text = "first words " + " " * (200 * CHARS_PER_TOKEN) + _long_text(5_000)
    whole = encoder.tokenizer([text], truncation=True, max_length=32)["input_ids"]
    assert encoder.tokenize([text])["input_ids"].tolist() == whole
