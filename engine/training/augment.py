"""Word augmentations of a sentence and the randomness of a training step (SimCSE's Table 1 ablations; JEPA's
context views reuse them).

- ``delete-one-word``: one random word removed;
- ``crop``: a random contiguous span of (100 − k) % of the words kept;
- ``word-deletion``: k % of the words deleted at random, never all.

Augmentations act on words (whitespace tokens, re-joined by one space) and are seeded per step
(:func:`step_rng`: the same on every rank and for every world size).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

WordOp = Callable[[list[str], float, np.random.Generator], list[str]]


def delete_one_word(words: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    """Remove exactly one word chosen uniformly (a one-word sentence is kept as is)."""
    if len(words) < 2:
        return list(words)
    drop = int(rng.integers(len(words)))
    return words[:drop] + words[drop + 1 :]


def crop(words: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    """Keep a random contiguous span of ``max(1, round((1 - k) · n))`` words (crop k %)."""
    n = len(words)
    keep = max(1, round((1.0 - rate) * n)) if n else 0
    start = int(rng.integers(n - keep + 1)) if n else 0
    return words[start : start + keep]


def word_deletion(words: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    """Delete ``round(k · n)`` distinct random words, never all of them (word deletion k %)."""
    n = len(words)
    drop = min(round(rate * n), n - 1) if n else 0
    if drop <= 0:
        return list(words)
    gone = set(rng.choice(n, size=drop, replace=False).tolist())
    return [word for i, word in enumerate(words) if i not in gone]


def no_augmentation(words: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    """The words as they are."""
    return list(words)


AUGMENTATIONS: dict[str, WordOp] = {
    "none": no_augmentation,
    "delete-one-word": delete_one_word,
    "crop": crop,
    "word-deletion": word_deletion,
}


def augment_texts(texts: Sequence[str], kind: str, rate: float, rng: np.random.Generator) -> list[str]:
    """Apply augmentation ``kind`` to every text, word by word (whitespace tokens, re-joined by one space)."""
    if kind == "none":
        return list(texts)
    op = AUGMENTATIONS[kind]
    return [" ".join(op(text.split(), rate, rng)) or text for text in texts]


def step_rng(seed: int, step: int) -> np.random.Generator:
    """The augmentation randomness of one step: the same on every rank and for every world size."""
    return np.random.default_rng([int(seed), int(step)])
