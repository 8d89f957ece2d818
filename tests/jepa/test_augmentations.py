"""The span-masking view: how many words, in how many spans, and the other views."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.jepa.augmentations import MAX_SPANS, context_view, describe, span_mask
from engine.jepa.config import JEPAConfig


def _spans(masked: list[bool]) -> int:
    return sum(1 for i, m in enumerate(masked) if m and (i == 0 or not masked[i - 1]))


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(0, 60),
    low=st.floats(0.0, 0.9),
    high=st.floats(0.0, 0.9),
    seed=st.integers(0, 2**32 - 1),
)
def test_span_mask_masks_a_share_in_a_few_contiguous_spans(
    n: int, low: float, high: float, seed: int
) -> None:
    words = [f"w{i}" for i in range(n)]
    out = span_mask(words, low, high, np.random.default_rng(seed), mask="[M]")
    assert len(out) == n
    masked = [w == "[M]" for w in out]
    assert all(o == w for o, w, m in zip(out, words, masked, strict=True) if not m)  # the rest unchanged
    if n < 2:
        assert out == words
        return
    count = sum(masked)
    lo, hi = sorted((low, high))
    assert 1 <= count <= n - 1
    assert count in {min(n - 1, max(1, k)) for k in range(int(np.floor(lo * n)), int(np.ceil(hi * n)) + 1)}
    assert 1 <= _spans(masked) <= MAX_SPANS


def test_the_views_and_their_labels() -> None:
    texts = ["a b c d e f g h i j", "one two three four"]
    rng = np.random.default_rng(0)
    masked = context_view(texts, JEPAConfig(), rng, "[MASK]")
    assert all("[MASK]" in t for t in masked) and [len(t.split()) for t in masked] == [10, 4]
    assert context_view(texts, JEPAConfig(view="dropout"), rng) == texts
    assert all(
        len(t.split()) == len(s.split()) - 1
        for t, s in zip(context_view(texts, JEPAConfig(view="delete-one-word"), rng), texts, strict=True)
    )
    assert describe(JEPAConfig()) == "span-mask 15%–50% + dropout 0.1"
    assert describe(JEPAConfig(view="dropout", dropout=0.2)) == "dropout 0.2"
    assert describe(JEPAConfig(view="crop", augment_rate=0.3)) == "crop 30% + dropout 0.1"
