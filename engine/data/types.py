"""The five shapes a data set can take; every loader returns one of them.

Each type has a ``kind`` (class attribute), ``len()``, ``to_frame()`` for previews, ``warnings`` (non-fatal
findings of the loader: duplicates, singleton classes, dropped rows...) and ``source`` (file or hub URL).

Labels of :class:`LabelledTexts` are strings; a multi-label example carries a sorted tuple of strings
(cells like ``"a|b"`` or ``["a", "b"]`` in user files).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, Union

import numpy as np
import pandas as pd

from engine.errors import DataError

Label = Union[str, tuple[str, ...]]  # noqa: UP007 - runtime alias must work on Python 3.10
NLI_LABELS = ("entailment", "neutral", "contradiction")


def _same_length(name: str, **columns: object) -> None:
    lengths = {key: len(value) for key, value in columns.items()}  # type: ignore[arg-type]
    if len(set(lengths.values())) > 1:
        raise DataError(f"{name}: columns have different lengths {lengths}")


def label_text(label: Label) -> str:
    """A label as one string (multi-label tuples joined with ``|``)."""
    return "|".join(label) if isinstance(label, tuple) else label


@dataclass
class LabelledTexts:
    """Texts with one class label each (or a tuple of labels: multi-label)."""

    name: str
    texts: list[str]
    labels: list[Label]
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "labelled"

    def __post_init__(self) -> None:
        _same_length(self.name, texts=self.texts, labels=self.labels)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def is_multilabel(self) -> bool:
        return any(isinstance(label, tuple) for label in self.labels)

    @property
    def classes(self) -> list[str]:
        """Sorted distinct labels (for multi-label: every label that occurs in some tuple)."""
        seen: set[str] = set()
        for label in self.labels:
            seen.update(label if isinstance(label, tuple) else (label,))
        return sorted(seen)

    def label_counts(self) -> Counter:
        """Examples per distinct label value (tuples count as one value each)."""
        return Counter(self.labels)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"text": self.texts, "label": [label_text(lab) for lab in self.labels]})


@dataclass
class ScoredPairs:
    """Sentence pairs with a gold similarity score (STS: 0 = unrelated ... 5 = equivalent)."""

    name: str
    left: list[str]
    right: list[str]
    scores: np.ndarray
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "pairs"

    def __post_init__(self) -> None:
        self.scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)
        _same_length(self.name, left=self.left, right=self.right, scores=self.scores)
        if not np.all(np.isfinite(self.scores)):
            raise DataError(f"{self.name}: scores must be finite numbers")

    def __len__(self) -> int:
        return len(self.left)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"sentence1": self.left, "sentence2": self.right, "score": self.scores})


@dataclass
class NliPairs:
    """(premise, hypothesis, label) with label in entailment / neutral / contradiction."""

    name: str
    premises: list[str]
    hypotheses: list[str]
    labels: list[str]
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "nli-pairs"

    def __post_init__(self) -> None:
        _same_length(self.name, premises=self.premises, hypotheses=self.hypotheses, labels=self.labels)
        bad = sorted(set(self.labels) - set(NLI_LABELS))
        if bad:
            raise DataError(f"{self.name}: unknown NLI labels {bad[:5]} (expected {', '.join(NLI_LABELS)})")

    def __len__(self) -> int:
        return len(self.premises)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"premise": self.premises, "hypothesis": self.hypotheses, "label": self.labels})


@dataclass
class NliTriples:
    """(anchor, positive, hard negative) triples, as in SimCSE's ``nli_for_simcse.csv``."""

    name: str
    anchors: list[str]
    positives: list[str]
    negatives: list[str]
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "triples"

    def __post_init__(self) -> None:
        _same_length(self.name, anchors=self.anchors, positives=self.positives, negatives=self.negatives)

    def __len__(self) -> int:
        return len(self.anchors)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"anchor": self.anchors, "positive": self.positives, "negative": self.negatives})


@dataclass
class Sentences:
    """Plain sentences (unsupervised SimCSE input)."""

    name: str
    texts: list[str]
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "sentences"

    def __len__(self) -> int:
        return len(self.texts)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"text": self.texts})


Dataset = Union[LabelledTexts, ScoredPairs, NliPairs, NliTriples, Sentences]  # noqa: UP007
KINDS: dict[str, type] = {cls.kind: cls for cls in (LabelledTexts, ScoredPairs, NliPairs, NliTriples, Sentences)}
