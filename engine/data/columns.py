"""Guessing the columns of a table read by :mod:`engine.data.formats`: which holds the text, the label, the
two sides of a pair, the score, or the parts of an NLI triple (by name first, then by content)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import pandas as pd

TEXT_NAMES = (
    "text",
    "sentence",
    "sentences",
    "sent",
    "content",
    "review",
    "document",
    "doc",
    "body",
    "utterance",
    "query",
    "question",
    "tweet",
    "comment",
    "passage",
    "title",
)
LABEL_NAMES = (
    "label",
    "labels",
    "class",
    "classes",
    "category",
    "categories",
    "topic",
    "sentiment",
    "target",
    "y",
    "gold_label",
    "tag",
    "tags",
    "intent",
    "polarity",
    "emotion",
)
LEFT_NAMES = ("sentence1", "sentence_1", "sent1", "text1", "text_1", "text_a", "s1", "left", "question1")
RIGHT_NAMES = ("sentence2", "sentence_2", "sent2", "text2", "text_2", "text_b", "s2", "right", "question2")
SCORE_NAMES = (
    "score",
    "similarity",
    "similarity_score",
    "sim",
    "relatedness",
    "relatedness_score",
    "gold_score",
    "label",
)
PREMISE_NAMES = ("premise", "sentence1", "sentence_1", "text_a", "s1")
HYPOTHESIS_NAMES = ("hypothesis", "sentence2", "sentence_2", "text_b", "s2")
NLI_LABEL_NAMES = ("label", "gold_label", "labels", "class")
ANCHOR_NAMES = ("anchor", "sent0", "premise", "query", "sentence", "text")
POSITIVE_NAMES = ("positive", "sent1", "entailment", "pos", "positive_sentence")
NEGATIVE_NAMES = ("negative", "hard_neg", "hard_negative", "contradiction", "neg", "negative_sentence")
NLI_VALUES = {"entailment", "neutral", "contradiction", "-", "0", "1", "2", "-1"}


@dataclass
class ColumnGuess:
    """The guessed kind and the column for each role (``None`` = not found); for the UI's column picker."""

    kind: str
    columns: list[str] = field(default_factory=list)
    text: str | None = None
    label: str | None = None
    left: str | None = None
    right: str | None = None
    score: str | None = None
    premise: str | None = None
    hypothesis: str | None = None
    anchor: str | None = None
    positive: str | None = None
    negative: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _norm(name: object) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def find_column(columns: list[str], candidates: tuple[str, ...], exclude: tuple = ()) -> str | None:
    """The first column whose normalised name is in ``candidates`` (in candidate order)."""
    by_norm: dict[str, str] = {}
    for col in columns:
        if col not in exclude:
            by_norm.setdefault(_norm(col), col)
    for cand in candidates:
        if cand in by_norm:
            return by_norm[cand]
    return None


def resolve_column(columns: list[str], requested: str) -> str | None:
    """A user-given column name: exact match, else case/space-insensitive."""
    if requested in columns:
        return requested
    matches = [col for col in columns if _norm(col) == _norm(requested)]
    return matches[0] if matches else None


def _values(frame: pd.DataFrame, col: str, n: int = 2000) -> list[str]:
    return [str(v).strip() for v in frame[col].head(n).tolist() if v is not None and str(v).strip() != ""]


def _is_numeric(frame: pd.DataFrame, col: str) -> bool:
    values = _values(frame, col)
    if not values:
        return False
    numbers = pd.to_numeric(pd.Series(values), errors="coerce")
    return bool(numbers.notna().all())


def _looks_nli(frame: pd.DataFrame, col: str, numeric_ok: bool) -> bool:
    """Label values are NLI names (or 0/1/2 codes when ``numeric_ok``), "-" allowed."""
    values = {v.lower() for v in _values(frame, col)}
    if not values or not values <= NLI_VALUES:
        return False
    named = values & {"entailment", "neutral", "contradiction"}
    return bool(named) or (numeric_ok and "2" in values)


def _string_columns(frame: pd.DataFrame) -> list[str]:
    return [col for col in frame.columns if _values(frame, col, 200) and not _is_numeric(frame, col)]


def guess_columns(frame: pd.DataFrame) -> ColumnGuess:
    """Guess the column of every role from the names (and contents), then the most specific kind.

    Kind order: triples (anchor/positive/negative, sent0/sent1/hard_neg) > nli-pairs (premise/hypothesis
    + NLI labels) > pairs (sentence1/sentence2 + numeric score) > labelled (text + label) > sentences.
    """
    cols = [str(c) for c in frame.columns]
    g = ColumnGuess(kind="sentences", columns=cols)
    g.anchor, g.positive = find_column(cols, ANCHOR_NAMES), find_column(cols, POSITIVE_NAMES)
    g.negative = find_column(cols, NEGATIVE_NAMES)
    g.premise, g.hypothesis = find_column(cols, PREMISE_NAMES), find_column(cols, HYPOTHESIS_NAMES)
    g.left, g.right = find_column(cols, LEFT_NAMES), find_column(cols, RIGHT_NAMES)
    numeric = [c for c in cols if c not in (g.left, g.right) and _is_numeric(frame, c)]
    g.score = find_column(numeric, SCORE_NAMES)
    g.text = find_column(cols, TEXT_NAMES) or _fallback_text(frame)
    g.label = find_column(cols, LABEL_NAMES, exclude=(g.text,))
    nli_label = find_column(cols, NLI_LABEL_NAMES, exclude=(g.premise, g.hypothesis))
    if g.anchor and g.positive and g.negative and len({g.anchor, g.positive, g.negative}) == 3:
        g.kind = "triples"
    elif (
        g.premise
        and g.hypothesis
        and nli_label
        and _looks_nli(frame, nli_label, numeric_ok=_norm(g.premise) == "premise")
    ):
        g.kind, g.label = "nli-pairs", nli_label
    elif g.left and g.right and g.score:
        g.kind = "pairs"
    elif g.text and g.label:
        g.kind = "labelled"
    return g


def _fallback_text(frame: pd.DataFrame) -> str | None:
    """No column named like text: the single string column, else the one with the longest texts."""
    strings = [c for c in _string_columns(frame) if _norm(c) not in LABEL_NAMES]
    if len(strings) <= 1:
        return strings[0] if strings else None
    return max(strings, key=lambda c: frame[c].head(500).astype(str).str.len().mean())
