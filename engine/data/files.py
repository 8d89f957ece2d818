"""User files (and any DataFrame) -> a data set, with checks that give one clear error or a warning.

Errors (one :class:`DataError` line naming the file): a missing or misnamed column (available columns
listed), a single column (wrong delimiter?), no non-empty text, a single class for labelled data,
non-numeric scores, unknown NLI labels, no rows left.
Warnings (``dataset.warnings``): rows dropped for empty text/label, classes with one member, duplicate
rows (kept), very long texts (kept; encoders truncate), scores outside 0-5.

Multi-label: a label cell ``"a|b"`` or a JSON list ``["a", "b"]`` (or a list in JSONL) makes the whole set
multi-label; every label becomes a sorted tuple of distinct non-empty strings (``"a"`` -> ``("a",)``).
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from engine.core.errors import ConfigError, DataError
from engine.data.columns import (
    NLI_LABEL_NAMES,
    SCORE_NAMES,
    ColumnGuess,
    find_column,
    guess_columns,
    resolve_column,
)
from engine.data.convert import convert
from engine.data.formats import DELIMITER_NAMES, read_table
from engine.data.layouts import looks_like_sts_original, read_sts_csv
from engine.data.types import (
    NLI_LABELS,
    Dataset,
    Label,
    LabelledTexts,
    NliPairs,
    NliTriples,
    ScoredPairs,
    Sentences,
)

LONG_TEXT = 2000  # characters; about 512 word pieces, the usual encoder limit
KIND_ALIASES = {
    "labelled": "labelled",
    "labeled": "labelled",
    "classification": "labelled",
    "pairs": "pairs",
    "sts": "pairs",
    "scored-pairs": "pairs",
    "nli-pairs": "nli-pairs",
    "nli": "nli-pairs",
    "paired": "nli-pairs",
    "triples": "triples",
    "nli-triples": "triples",
    "sentences": "sentences",
    "unsupervised": "sentences",
    "text": "sentences",
}
NLI_CODES = {"0": "entailment", "1": "neutral", "2": "contradiction"}
NLI_DROP = {"-", "-1", ""}
_CONVERTIBLE = {
    ("triples", "nli-pairs"),
    ("nli-pairs", "triples"),
    ("sentences", "pairs"),
    ("sentences", "nli-pairs"),
    ("sentences", "triples"),
}
TEXT_HINT = "choose one with text_col / --text-col"
LABEL_HINT = "choose one with label_col / --label-col"
PAIRS_HINT = "name the columns sentence1, sentence2, score"
NLI_HINT = "name the columns premise, hypothesis, label"


def normalise_kind(kind: str | None) -> str | None:
    """A kind name or alias -> one of labelled / pairs / nli-pairs / triples / sentences."""
    if kind is None or kind == "":
        return None
    key = str(kind).strip().lower().replace("_", "-")
    if key not in KIND_ALIASES:
        raise ConfigError(
            f"unknown data kind {kind!r} (choose from labelled, pairs, nli-pairs, triples, sentences)"
        )
    return KIND_ALIASES[key]


def load_file(
    path: str | os.PathLike,
    *,
    text_col: str | None = None,
    label_col: str | None = None,
    kind: str | None = None,
    max_rows: int | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a CSV/TSV/JSONL/JSON/TXT/Parquet file and build the data set of ``kind`` (guessed if None)."""
    path = Path(path)
    if kind in (None, "pairs") and not text_col and looks_like_sts_original(path):
        left, right, scores = read_sts_csv(path)
        return ScoredPairs(name or path.stem, left, right, scores, source=str(path))
    frame = read_table(path, max_rows=max_rows)
    return from_frame(
        frame,
        fname=path.name,
        name=name or path.stem,
        text_col=text_col,
        label_col=label_col,
        kind=kind,
        source=str(path),
    )


def from_frame(
    frame: pd.DataFrame,
    *,
    fname: str,
    name: str | None = None,
    text_col: str | None = None,
    label_col: str | None = None,
    kind: str | None = None,
    source: str = "",
) -> Dataset:
    """Build a data set from a table; ``fname`` names the file in messages."""
    guess = guess_columns(frame)
    kind = _choose_kind(guess, normalise_kind(kind), text_col, label_col)
    ctx = _Ctx(frame, guess, fname, name or fname, source)
    if kind != guess.kind and (kind, guess.kind) in _CONVERTIBLE and not text_col:  # read as found, convert
        return convert(from_frame(frame, fname=fname, name=name, kind=guess.kind, source=source), kind)
    if kind == "labelled":
        return ctx.labelled(text_col, label_col)
    if kind == "pairs":
        return ctx.pairs()
    if kind == "nli-pairs":
        return ctx.nli_pairs(label_col)
    if kind == "triples":
        return ctx.triples()
    return ctx.sentences(text_col)


def _choose_kind(guess: ColumnGuess, kind: str | None, text_col: str | None, label_col: str | None) -> str:
    """The asked kind; else labelled when a label column is named; else single texts when a text column is
    named (labelled if a label column is found); else the guessed kind."""
    if kind is not None:
        return kind
    if label_col:
        return "labelled"
    if text_col:
        return (
            "labelled"
            if guess.label and resolve_column(guess.columns, text_col) != guess.label
            else "sentences"
        )
    return guess.kind


def cell_text(value: object) -> str:
    """A cell as stripped text ('' for None/NaN)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def parse_labels(values: list[object]) -> list[Label]:
    """Single labels as stripped strings, or (multi-label) sorted tuples; '' / () mean missing."""
    values = [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
    multi = any(
        isinstance(v, (list, tuple))
        or (isinstance(v, str) and _json_list(v) is not None)
        or (isinstance(v, str) and "|" in v)
        for v in values
    )
    if not multi:
        return [cell_text(v) for v in values]
    out: list[Label] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            parts = [cell_text(v) for v in value]
        elif isinstance(value, str) and _json_list(value) is not None:
            parts = [cell_text(v) for v in _json_list(value)]
        else:
            parts = cell_text(value).split("|")
        out.append(tuple(sorted({p.strip() for p in parts if p.strip()})))
    return out


def _json_list(text: str) -> list | None:
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def common_warnings(texts: list[str], rows: list[tuple], what: str = "rows") -> list[str]:
    """Duplicate and very long texts (both kept)."""
    notes = []
    dupes = len(rows) - len(set(rows))
    if dupes:
        notes.append(f"{dupes:,} duplicate {what} (kept)")
    long = sum(len(t) > LONG_TEXT for t in texts)
    if long:
        notes.append(f"{long:,} texts longer than {LONG_TEXT:,} characters (kept; encoders truncate them)")
    return notes


class _Ctx:
    """One table being turned into a data set (shared column lookup and messages)."""

    def __init__(self, frame: pd.DataFrame, guess: ColumnGuess, fname: str, name: str, source: str):
        self.frame, self.guess, self.fname, self.name, self.source = frame, guess, fname, name, source
        self.columns = [str(c) for c in frame.columns]

    # --- columns
    def column(self, requested: str | None, guessed: str | None, role: str, hint: str) -> str:
        if requested:
            found = resolve_column(self.columns, requested)
            if found is None:
                raise DataError(
                    f"{self.fname}: no column {requested!r} for the {role} "
                    f"(columns: {self._listing()}){self._delimiter_hint()}"
                )
            return found
        if guessed is None:
            raise DataError(
                f"{self.fname}: no {role} column found (columns: {self._listing()}); "
                f"{hint}{self._delimiter_hint()}"
            )
        return guessed

    def _listing(self) -> str:
        shown = [repr(c) if len(c) < 60 else repr(c[:57] + "...") for c in self.columns[:20]]
        more = f", ... {len(self.columns) - 20} more" if len(self.columns) > 20 else ""
        return ", ".join(shown) + more

    def _delimiter_hint(self) -> str:
        if len(self.columns) != 1 or "delimiter" not in self.frame.attrs:
            return ""
        sep = DELIMITER_NAMES.get(self.frame.attrs["delimiter"], repr(self.frame.attrs["delimiter"]))
        return f"; only one column was found when splitting on {sep}: is the delimiter right?"

    def texts(self, col: str) -> list[str]:
        return [cell_text(v) for v in self.frame[col].tolist()]

    def keep(self, rows: list[tuple], role: str, notes: list[str]) -> list[tuple]:
        """Drop rows with any empty field; error when nothing is left."""
        kept = [row for row in rows if all(v != "" and v != () for v in row)]
        dropped = len(rows) - len(kept)
        if not kept:
            raise DataError(f"{self.fname}: no usable rows: all {len(rows):,} rows have an empty {role}")
        if dropped:
            notes.append(f"dropped {dropped:,} of {len(rows):,} rows with an empty {role}")
        return kept

    def make(self, cls: type, *columns: list, notes: list[str]) -> Dataset:
        return cls(self.name, *columns, warnings=notes, source=self.source)

    # --- kinds
    def labelled(self, text_col: str | None, label_col: str | None) -> LabelledTexts:
        tcol = self.column(text_col, self.guess.text, "text", TEXT_HINT)
        lcol = self.column(
            label_col, self.guess.label if self.guess.label != tcol else None, "label", LABEL_HINT
        )
        notes: list[str] = []
        rows = list(zip(self.texts(tcol), parse_labels(self.frame[lcol].tolist()), strict=True))
        rows = self.keep(rows, f"text ({tcol!r}) or label ({lcol!r})", notes)
        texts, labels = [r[0] for r in rows], [r[1] for r in rows]
        counts = Counter(labels)
        classes = {c for lab in counts for c in (lab if isinstance(lab, tuple) else (lab,))}
        if len(classes) < 2:
            only = next(iter(classes))
            raise DataError(
                f"{self.fname}: column {lcol!r} has a single class ({only!r}); a classifier needs at least 2"
            )
        singles = sorted(str(lab) for lab, n in counts.items() if n == 1)
        if singles:
            shown = ", ".join(singles[:5]) + (" ..." if len(singles) > 5 else "")
            notes.append(f"{len(singles):,} classes have a single example ({shown})")
        notes += common_warnings(texts, rows)
        conflicts = len(set(texts)) - len(set(rows))
        if conflicts < 0:
            notes.append(f"{-conflicts:,} texts appear with different labels")
        return self.make(LabelledTexts, texts, labels, notes=notes)

    def sentences(self, text_col: str | None) -> Sentences:
        tcol = self.column(text_col, self.guess.text, "text", TEXT_HINT)
        notes: list[str] = []
        rows = self.keep([(t,) for t in self.texts(tcol)], f"text ({tcol!r})", notes)
        texts = [r[0] for r in rows]
        notes += common_warnings(texts, rows, "sentences")
        return self.make(Sentences, texts, notes=notes)

    def pairs(self) -> ScoredPairs:
        g = self.guess
        left = self.column(None, g.left, "first sentence (sentence1)", PAIRS_HINT)
        right = self.column(None, g.right, "second sentence (sentence2)", PAIRS_HINT)
        score_col = self.column(
            None,
            g.score or find_column(self.columns, SCORE_NAMES, exclude=(left, right)),
            "score",
            PAIRS_HINT,
        )
        notes: list[str] = []
        raw = self.texts(score_col)
        numbers = pd.to_numeric(pd.Series(raw, dtype=object), errors="coerce").to_numpy(dtype=float)
        bad = [i for i, (r, x) in enumerate(zip(raw, numbers, strict=True)) if r != "" and not np.isfinite(x)]
        if bad:
            raise DataError(
                f"{self.fname}: column {score_col!r} has non-numeric scores "
                f"(e.g. {raw[bad[0]]!r} in row {bad[0] + 1})"
            )
        scores = ["" if r == "" else float(x) for r, x in zip(raw, numbers, strict=True)]
        rows = self.keep(
            list(zip(self.texts(left), self.texts(right), scores, strict=True)), "sentence or score", notes
        )
        values = np.array([r[2] for r in rows], dtype=float)
        if values.min() < 0 or values.max() > 5:
            notes.append(
                f"scores range {values.min():g}..{values.max():g}, outside the STS 0-5 scale "
                "(Spearman correlation does not mind)"
            )
        notes += common_warnings([t for r in rows for t in r[:2]], rows, "pairs")
        return self.make(ScoredPairs, [r[0] for r in rows], [r[1] for r in rows], values, notes=notes)

    def nli_pairs(self, label_col: str | None) -> NliPairs:
        g = self.guess
        prem = self.column(None, g.premise, "premise", NLI_HINT)
        hyp = self.column(None, g.hypothesis, "hypothesis", NLI_HINT)
        guessed = (
            g.label if g.kind == "nli-pairs" else find_column(self.columns, NLI_LABEL_NAMES, (prem, hyp))
        )
        lcol = self.column(label_col, guessed, "label", LABEL_HINT)
        notes: list[str] = []
        labels, unknown, dropped = [], Counter(), 0
        for value in self.texts(lcol):
            key = value.lower()
            if key in NLI_DROP:
                dropped += 1
                labels.append("")
            elif key in NLI_LABELS or key in NLI_CODES:
                labels.append(NLI_CODES.get(key, key))
            else:
                unknown[value] += 1
                labels.append("")
        if unknown:
            shown = ", ".join(repr(k) for k, _ in unknown.most_common(5))
            raise DataError(
                f"{self.fname}: column {lcol!r} has labels that are not NLI labels ({shown}); "
                "expected entailment/neutral/contradiction or 0/1/2"
            )
        if dropped:
            notes.append(f"dropped {dropped:,} pairs without a gold label ('-')")
        rows = list(zip(self.texts(prem), self.texts(hyp), labels, strict=True))
        kept = [r for r in rows if r[2]]
        rows = self.keep(kept, "premise or hypothesis", notes) if kept else self.keep(rows, "label", notes)
        notes += common_warnings([t for r in rows for t in r[:2]], rows, "pairs")
        return self.make(NliPairs, *[list(c) for c in zip(*rows, strict=True)], notes=notes)

    def triples(self) -> NliTriples:
        g = self.guess
        need = "name the columns anchor, positive, negative (or sent0, sent1, hard_neg)"
        cols = [
            self.column(None, g.anchor, "anchor", need),
            self.column(None, g.positive, "positive", need),
            self.column(None, g.negative, "negative", need),
        ]
        notes: list[str] = []
        rows = self.keep(list(zip(*(self.texts(c) for c in cols), strict=True)), "sentence", notes)
        notes += common_warnings([t for r in rows for t in r], rows, "triples")
        return self.make(NliTriples, *[list(c) for c in zip(*rows, strict=True)], notes=notes)
