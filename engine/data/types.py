"""The five shapes a data set can take; every loader returns one of them.

Each type has a ``kind`` (class attribute), ``len()``, ``to_frame()`` for previews, ``warnings`` (non-fatal
findings of the loader: duplicates, singleton classes, dropped rows...) and ``source`` (file or hub URL).

Labels of :class:`LabelledTexts` are strings; a multi-label example carries a sorted tuple of strings
(cells like ``"a|b"`` or ``["a", "b"]`` in user files). :class:`LabelledWords` is a LabelledTexts whose texts
are single words (the probe gives them static word vectors); :class:`LabelledVectors` holds precomputed
embeddings with their labels (a ``.npz`` file, :mod:`engine.data.vectors`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Union

import numpy as np
import pandas as pd

from engine.core.errors import DataError

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

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"text": self.texts, "label": [label_text(lab) for lab in self.labels]})


@dataclass
class LabelledWords(LabelledTexts):
    """Single words with a label (or label set) each: the texts are words, not sentences, so the probe gives
    them static word vectors (an encoder's input embedding table or a word-vector file), never a sentence
    encoder. Same fields and kind as :class:`LabelledTexts`."""


@dataclass
class LabelledVectors:
    """Precomputed embeddings with labels (``.npz``: :func:`engine.data.vectors.load_npz`).

    ``vectors`` (n, d) float32; ``labels`` (n,) int64 class indices into ``class_names``, or (n, L) float32
    0/1 (multi-label, a column per name of ``class_names``); ``texts`` names the items (None: ``#i``).
    """

    name: str
    vectors: np.ndarray
    labels: np.ndarray
    class_names: list[str]
    texts: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    kind: ClassVar[str] = "vectors"

    def __post_init__(self) -> None:
        n = len(self.vectors)
        if len(self.labels) != n or (self.texts is not None and len(self.texts) != n):
            raise DataError(
                f"{self.name}: {n:,} vectors but {len(self.labels):,} labels"
                + (f" and {len(self.texts):,} texts" if self.texts is not None else "")
            )

    def __len__(self) -> int:
        return len(self.vectors)

    @property
    def is_multilabel(self) -> bool:
        return self.labels.ndim == 2

    @property
    def classes(self) -> list[str]:
        return list(self.class_names)

    def describe(self) -> str:
        """One line for a preview: items, dimensions, classes or label sets."""
        n, d = self.vectors.shape
        if self.is_multilabel:
            sets = len(np.unique(self.labels, axis=0))
            what = f"{len(self.class_names)} labels in {sets:,} distinct label sets (multi-label)"
        else:
            what = f"{len(self.class_names)} classes"
        return f"{n:,} embeddings of {d} dimensions, {what}"

    def item_text(self, i: int) -> str:
        return self.texts[i] if self.texts is not None else f"#{i}"

    def label_of(self, i: int) -> Label:
        if self.is_multilabel:
            return tuple(name for name, on in zip(self.class_names, self.labels[i], strict=True) if on > 0.5)
        return self.class_names[int(self.labels[i])]

    def cluster_ids(self) -> np.ndarray:
        """(n,) ints: the class, or (multi-label) the index of the distinct label set."""
        if not self.is_multilabel:
            return self.labels.astype(np.int64, copy=False)
        _, inverse = np.unique(self.labels, axis=0, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64)

    def take(self, indices: np.ndarray) -> LabelledVectors:
        idx = np.asarray(indices, dtype=np.int64)
        texts = [self.texts[i] for i in idx.tolist()] if self.texts is not None else None
        return LabelledVectors(
            self.name,
            self.vectors[idx],
            self.labels[idx],
            list(self.class_names),
            texts,
            warnings=list(self.warnings),
            source=self.source,
        )

    def to_frame(self) -> pd.DataFrame:
        n = len(self)
        return pd.DataFrame(
            {
                "item": [self.item_text(i) for i in range(n)],
                "label": [label_text(self.label_of(i)) for i in range(n)],
                "norm": np.linalg.norm(self.vectors, axis=1),
            }
        )


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


Dataset = Union[LabelledTexts, ScoredPairs, NliPairs, NliTriples, Sentences, LabelledVectors]  # noqa: UP007
#: the kinds of text data sets (:class:`LabelledVectors`, kind ``vectors``, comes only from a .npz file)
KINDS: dict[str, type] = {
    cls.kind: cls for cls in (LabelledTexts, ScoredPairs, NliPairs, NliTriples, Sentences)
}
