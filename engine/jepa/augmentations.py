"""The two views of a sentence in JEPA: the context (what the online encoder reads) and the target (what
the target encoder reads: the whole sentence).

- ``span-mask`` (I-JEPA's masking, on words): a share r ~ U(mask_min, mask_max) of the words, at least one
  and never all, is replaced by the tokenizer's mask token, in 1 to 3 contiguous spans placed at random
  without overlapping (:func:`span_mask`);
- ``dropout``: the context is the sentence itself; the views differ only by their dropout masks;
- ``delete-one-word``, ``crop``, ``word-deletion``: SimCSE's augmentations (:mod:`engine.training.augment`),
  applied to the context.

Words are whitespace tokens; the randomness of a step is :func:`engine.training.augment.step_rng` (the same on
every rank and for every world size).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.training.augment import augment_texts

MAX_SPANS = 3


def span_mask(
    words: list[str], low: float, high: float, rng: np.random.Generator, mask: str = "[MASK]"
) -> list[str]:
    """``words`` with a share r ~ U(low, high) of them (rounded, 1 to n − 1) replaced by ``mask`` in 1 to
    ``MAX_SPANS`` contiguous non-overlapping spans; a one-word sentence is kept as is."""
    n = len(words)
    if n < 2:
        return list(words)
    low, high = sorted((low, high))
    masked = min(n - 1, max(1, round(float(rng.uniform(low, high)) * n)))
    free = n - masked
    spans = int(rng.integers(1, min(MAX_SPANS, masked, free + 1) + 1))
    lengths = _split(masked, spans, rng)
    # gaps before, between and after the spans: the inner ones at least 1 word
    extra = rng.multinomial(free - (spans - 1), np.full(spans + 1, 1.0 / (spans + 1)))
    gaps = extra + np.r_[0, np.ones(spans - 1, dtype=int), 0]
    out, at = list(words), 0
    for gap, length in zip(gaps[:-1], lengths, strict=True):
        at += int(gap)
        out[at : at + length] = [mask] * length
        at += length
    return out


def _split(total: int, parts: int, rng: np.random.Generator) -> list[int]:
    """``total`` split into ``parts`` positive whole numbers at random."""
    cuts = np.sort(rng.choice(np.arange(1, total), size=parts - 1, replace=False)) if parts > 1 else []
    edges = [0, *map(int, cuts), total]
    return [b - a for a, b in zip(edges[:-1], edges[1:], strict=True)]


def context_view(
    texts: Sequence[str], config: object, rng: np.random.Generator, mask: str = "[MASK]"
) -> list[str]:
    """The context texts of a batch for ``config.view`` (the target texts are ``texts``)."""
    view = config.view
    if view == "span-mask":
        return [
            " ".join(span_mask(t.split(), config.mask_min, config.mask_max, rng, mask)) or t for t in texts
        ]
    if view == "dropout":
        return list(texts)
    return augment_texts(texts, view, config.augment_rate, rng)


def describe(config: object) -> str:
    """A short human label of the views, e.g. ``span-mask 15–50 % + dropout 0.1``."""
    view = config.view
    if view == "span-mask":
        low, high = sorted((config.mask_min, config.mask_max))
        label = f"span-mask {low:.0%}–{high:.0%}"
    elif view in ("crop", "word-deletion"):
        label = f"{view} {config.augment_rate:.0%}"
    else:
        label = view
    return f"dropout {config.dropout:g}" if view == "dropout" else f"{label} + dropout {config.dropout:g}"
