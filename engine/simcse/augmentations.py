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
- ``dropout`` sets the rate of every dropout of the encoder (:func:`engine.training.encoder.set_dropout`).

The augmentations themselves and a step's randomness are the training core's (:mod:`engine.training.augment`,
shared with JEPA); the dropout p and the rate k are shared knobs (:mod:`engine.core.shared_knobs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.core.shared_knobs import declaration
from engine.training.augment import AUGMENTATIONS, augment_texts

__all__ = [
    "AUGMENTATIONS",
    "FIGURE2_RUNS",
    "PAPER_ROWS",
    "VIEWS",
    "Param",
    "ViewPlan",
    "ViewSwitch",
    "plan_of",
]


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
    """One ablation switch: what it sets in :class:`~engine.simcse.config.SimCSEConfig` and why."""

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


def _param(name: str, knob: str, help: str) -> Param:
    """A switch's parameter with the default and range of the shared knob ``knob``."""
    item = declaration(knob)
    return Param(name, knob, item.default, item.low, item.high, help)


_RATE = _param("k", "augment_rate", "fraction of the words affected")

VIEWS: dict[str, ViewSwitch] = {
    "dropout": ViewSwitch(
        "dropout",
        declaration("dropout").help,
        params=(_param("p", "dropout", "dropout rate of every dropout layer"),),
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
