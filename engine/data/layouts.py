"""Data files in their original published layouts, recognised by content when given by path.

- STS-B ``sts-{train,dev,test}.csv``: no header, TAB-separated *without* quoting (sentences contain ``"``),
  genre, file, year, id, score (0-5), sentence 1, sentence 2 (some lines carry extra source fields).

(SNLI's TSV and JSONL files have headers and are read as ordinary tables.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core.errors import DataError
from engine.core.safe_open import open_regular, read_regular

_SAMPLE = 64 * 1024


def looks_like_sts_original(path: Path) -> bool:
    """STS-B as distributed (``sts-*.csv``): no header, tab-separated, >= 7 fields, a 0-5 score in field 5."""
    try:
        with open_regular(path) as handle:  # a named pipe is refused, never waited on
            first = handle.readline(_SAMPLE).decode("utf-8-sig", errors="replace")
    except OSError:
        return False
    fields = first.rstrip("\r\n").split("\t")
    if len(fields) < 7:
        return False
    try:
        return 0.0 <= float(fields[4]) <= 5.0
    except ValueError:
        return False


def read_sts_csv(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """STS-B original ``sts-*.csv``: TAB-split without quoting; score = field 5, sentences = 6 and 7."""
    left, right, scores = [], [], []
    try:
        text = read_regular(path).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(
            f"{path.name}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start})"
        ) from None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = line.rstrip("\r").split("\t")
        if len(fields) < 7:
            raise DataError(
                f"{path.name}: line {number} has {len(fields)} tab-separated fields, expected >= 7"
            )
        try:
            scores.append(float(fields[4]))
        except ValueError:
            raise DataError(f"{path.name}: line {number}: score {fields[4]!r} is not a number") from None
        left.append(fields[5].strip())
        right.append(fields[6].strip())
    return left, right, np.asarray(scores, dtype=np.float64)
