"""The two views of a sentence in SimCSE, as composable switches (the paper's ablations), each defined once.

Gao, Yao & Chen 2021 (arXiv 2104.08821) make a positive pair by encoding the same sentence twice: only the
dropout masks differ. Its ablations swap that noise for others; every one of them is a switch here:

=================  ===========================  ============================================================
switch             config fields                paper row (STS-B dev, BERT-base)
=================  ===========================  ============================================================
dropout p          ``dropout=p``                Table 3: p = 0.1 → 82.5; p = 0 ("no dropout") → 71.1
same mask          ``same_mask=True``           Table 3: "fixed 0.1" → 43.6
delete one word    ``augment="delete-one-word"``  Table 1: 75.9 (74.2 with ``dropout=0``)
crop k %           ``augment="crop"``, rate k   Table 1: 10/20/30 % → 77.8/71.4/63.6
word deletion k %  ``augment="word-deletion"``  Table 1: 10/20/30 % → 75.9/72.2/68.2
=================  ===========================  ============================================================

Conventions (documented choices):

- **Same mask.** The official code has no "fixed 0.1"; the authors say (princeton-nlp/SimCSE#36) to run the
  encoder once and set ``z2 = z1``. That is what ``same_mask`` does: one forward pass with dropout ``p``,
  the second view *is* the first, so the only training signal is pushing negatives apart (uniformity).
- **Augmentations** act on words (whitespace tokens), are seeded per step, and make the **second** view
  only: ``x⁺ = g(x)``, the anchor stays ``x``; dropout still applies to both views unless ``dropout=0``.
- ``dropout`` sets the rate of every ``nn.Dropout`` of the encoder (hidden and attention dropout; BERT's
  attention reads ``self.dropout.p`` at call time) and the config fields ``hidden_dropout_prob`` /
  ``attention_probs_dropout_prob`` (and ``attention_dropout`` / ``dropout`` where a model has them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from torch import nn

# ------------------------------------------------------------------------------------ augmentations

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


# ------------------------------------------------------------------------------------------ dropout


_FLOAT_DROPOUT_ATTRS = (
    "attention_dropout",
    "dropout_prob",
    "attention_probs_dropout_prob",
    "hidden_dropout_prob",
)
_CONFIG_DROPOUT_FIELDS = (
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "attention_dropout",
    "dropout",
)


def set_dropout(model: nn.Module, p: float) -> int:
    """Set every dropout of ``model`` (modules, float attributes, config fields) to ``p``; return #modules."""
    count = 0
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = float(p)
            count += 1
        for name in _FLOAT_DROPOUT_ATTRS:
            if isinstance(getattr(module, name, None), float):
                setattr(module, name, float(p))
    config = getattr(model, "config", None)
    for name in _CONFIG_DROPOUT_FIELDS:
        if config is not None and isinstance(getattr(config, name, None), float):
            setattr(config, name, float(p))
    return count


# ------------------------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Param:
    """A numeric parameter of a switch, stored in the config field ``field``."""

    name: str
    field: str
    default: float
    low: float
    high: float
    help: str


@dataclass(frozen=True)
class ViewSwitch:
    """One ablation switch: what it sets in :class:`~engine.simcse.train.SimCSEConfig` and why."""

    name: str
    explanation: str  # one line, shown by the UI and the CLI help
    sets: Mapping[str, Any] = field(default_factory=dict)  # config fields turned on by the switch
    params: tuple[Param, ...] = ()
    paper: str = ""  # where the paper reports it

    def overrides(self, **values: float) -> dict[str, Any]:
        """Config overrides that turn this switch on (parameters by name, defaults otherwise)."""
        out = dict(self.sets)
        for param in self.params:
            out[param.field] = float(values.get(param.name, param.default))
        return out


_RATE = Param("k", "augment_rate", 0.1, 0.0, 0.9, "fraction of the words affected")

VIEWS: dict[str, ViewSwitch] = {
    "dropout": ViewSwitch(
        "dropout",
        "Both views pass through standard dropout with rate p; p = 0 is 'no dropout' "
        "(the two views are identical).",
        params=(Param("p", "dropout", 0.1, 0.0, 0.9, "dropout rate of every dropout layer"),),
        paper="Table 3",
    ),
    "same-mask": ViewSwitch(
        "same-mask",
        "Both views share one dropout mask ('fixed 0.1'): one forward pass and z2 = z1 (authors, SimCSE#36).",
        sets={"same_mask": True},
        paper="Table 3, Figure 2",
    ),
    "delete-one-word": ViewSwitch(
        "delete-one-word",
        "The positive is the sentence with one random word deleted (dropout still on unless p = 0).",
        sets={"augment": "delete-one-word"},
        paper="Table 1, Figure 2",
    ),
    "crop": ViewSwitch(
        "crop",
        "The positive keeps a random contiguous span of (100 - k) % of the words.",
        sets={"augment": "crop"},
        params=(_RATE,),
        paper="Table 1",
    ),
    "word-deletion": ViewSwitch(
        "word-deletion",
        "The positive has k % of its words deleted at random.",
        sets={"augment": "word-deletion"},
        params=(_RATE,),
        paper="Table 1",
    ),
}


@dataclass(frozen=True)
class ViewPlan:
    """How a batch of sentences becomes two views (resolved from the config's switches)."""

    dropout: float = 0.1
    same_mask: bool = False
    augment: str = "none"
    augment_rate: float = 0.1

    @property
    def one_forward(self) -> bool:
        """Same mask: encode once and use ``z2 = z1``."""
        return self.same_mask

    def second_view(self, texts: Sequence[str], rng: np.random.Generator) -> list[str]:
        """The texts of ``x⁺`` (the anchor ``x`` is never augmented)."""
        return augment_texts(texts, self.augment, self.augment_rate, rng)

    def describe(self) -> str:
        """A short human label, e.g. ``dropout 0.1 + delete-one-word``."""
        parts = [f"dropout {self.dropout:g}" + (" (same mask)" if self.same_mask else "")]
        if self.augment != "none":
            rate = "" if self.augment == "delete-one-word" else f" {self.augment_rate:.0%}"
            parts.append(f"{self.augment}{rate}")
        return " + ".join(parts)


def plan_of(config: Any) -> ViewPlan:
    """The :class:`ViewPlan` of a config (any object with the four fields)."""
    return ViewPlan(
        float(config.dropout), bool(config.same_mask), str(config.augment), float(config.augment_rate)
    )


# ------------------------------------------------------------------------------------------ presets

#: The paper's rows as config overrides (unsupervised, BERT-base, STS-B dev Spearman × 100 in ``paper``).
PAPER_ROWS: dict[str, dict[str, Any]] = {
    "unsup-simcse": {"overrides": {}, "paper": 82.5, "where": "Table 3, p = 0.1"},
    "no-dropout": {"overrides": {"dropout": 0.0}, "paper": 71.1, "where": "Table 3, p = 0"},
    "fixed-0.1": {"overrides": {"same_mask": True}, "paper": 43.6, "where": "Table 3, fixed 0.1"},
    "delete-one-word": {"overrides": {"augment": "delete-one-word"}, "paper": 75.9, "where": "Table 1"},
    "delete-one-word-no-dropout": {
        "overrides": {"augment": "delete-one-word", "dropout": 0.0},
        "paper": 74.2,
        "where": "Table 1, w/o dropout",
    },
    "crop-10": {"overrides": {"augment": "crop", "augment_rate": 0.1}, "paper": 77.8, "where": "Table 1"},
    "word-deletion-10": {
        "overrides": {"augment": "word-deletion", "augment_rate": 0.1},
        "paper": 75.9,
        "where": "Table 1",
    },
}

#: The four runs of the paper's Figure 2 (alignment vs uniformity every 10 steps), as config overrides.
FIGURE2_RUNS: dict[str, dict[str, Any]] = {
    name: dict(PAPER_ROWS[name]["overrides"])
    for name in ("unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word")
}
