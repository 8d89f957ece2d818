"""Word vectors from a word2vec/GloVe text file, for the probe's word-level setups (``--vectors``).

``read_word_vectors(path, words)``: the vectors of ``words`` in a word2vec/GloVe text file: an optional
header line ``COUNT DIM``, then ``WORD v1 ... vDIM`` per line, separated by single spaces (a word may itself
hold spaces: the last DIM fields are the numbers). ``.gz`` files are read compressed. Exact matches first;
a word missing exactly takes the first line whose word lower-cases to it (word2vec is case-sensitive,
WordNet lower-case). Malformed lines (wrong field count, non-numbers, NaN/inf, undecodable bytes) are
skipped and counted; a binary word2vec file is refused with how to convert it.

Only a regular file is read (a named pipe is one line, never a wait); a line longer than
:data:`MAX_VECTOR_LINE` is skipped as malformed without being held whole; a run's stop is looked at every
65,536 lines (:mod:`engine.core.stopping`).
"""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from engine.core import stopping
from engine.core.errors import DataError, one_line
from engine.core.safe_open import check_regular, open_regular
from engine.data.npy_vectors import read_npy_word_vectors

#: a word-vector line longer than this is skipped as malformed without being held whole (a 50,000-dimension
#: vector fits)
MAX_VECTOR_LINE = 1 << 20


@dataclass
class FoundVectors:
    """What :func:`read_word_vectors` found: ``found[i]`` tells whether ``words[i]`` has a vector, and
    ``vectors`` holds those vectors in the order of the found words."""

    found: np.ndarray  # (len(words),) bool
    vectors: np.ndarray  # (found.sum(), dim) float32
    dim: int
    lines: int = 0
    bad_lines: int = 0
    first_bad: int | None = None
    lowercase_matches: int = 0
    notes: list[str] = field(default_factory=list)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@contextlib.contextmanager
def _open_text(path: Path) -> Iterator[IO[bytes]]:
    """The file's bytes (``.gz``: decompressed as read); only a regular file is opened."""
    with open_regular(path, f"--vectors {path.name}") as handle:
        if path.suffix != ".gz":
            yield handle
            return
        with gzip.GzipFile(fileobj=handle, mode="rb") as unpacked:
            yield unpacked


def _lines(handle: IO[bytes]) -> Iterable[bytes | None]:
    """The file's lines; None for one longer than :data:`MAX_VECTOR_LINE` (read past, never held whole)."""
    while raw := handle.readline(MAX_VECTOR_LINE + 1):
        if len(raw) > MAX_VECTOR_LINE and not raw.endswith(b"\n"):
            while (rest := handle.readline(MAX_VECTOR_LINE)) and not rest.endswith(b"\n"):
                pass
            yield None
        else:
            yield raw


def read_word_vectors(path: str | os.PathLike, words: Iterable[str]) -> FoundVectors:
    """The vectors of ``words`` in a word2vec/GloVe text file (see the module docstring)."""
    path = Path(path).expanduser()
    words = list(words)
    check_regular(path, f"--vectors {path.name}")
    if path.suffix.lower() == ".npy":  # a NAME.npy array with its vocabulary beside it
        return FoundVectors(**read_npy_word_vectors(path, words))
    if not path.is_file():
        raise DataError(f"--vectors {path}: no such file")
    wanted = {w: i for i, w in reversed(list(enumerate(words)))}  # first position of each word
    lowered: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        lowered.setdefault(w.lower(), []).append(i)
    exact: dict[str, np.ndarray] = {}
    folded: dict[str, np.ndarray] = {}
    dim: int | None = None
    lines = bad = 0
    first_bad: int | None = None
    try:
        with _open_text(path) as handle:
            for number, raw in enumerate(_lines(handle), start=1):
                if number % 65_536 == 0:
                    stopping.check()  # a run stopped while it reads a large vectors file ends here
                if raw is None:
                    lines, bad, first_bad = lines + 1, bad + 1, first_bad or number
                    continue
                try:
                    line = raw.decode("utf-8").rstrip("\r\n").rstrip(" ")
                except UnicodeDecodeError:
                    if number <= 2 and (dim is not None or number == 1):
                        raise DataError(
                            f"--vectors {path.name}: line {number} is not UTF-8 text: a binary "
                            "word2vec file? Save it as text (gensim: "
                            "KeyedVectors.save_word2vec_format(FILE, binary=False))"
                        ) from None
                    bad, first_bad = bad + 1, first_bad or number
                    continue
                if not line:
                    continue
                parts = line.split(" ")
                if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    dim = int(parts[1])  # word2vec header: COUNT DIM
                    if dim < 1:
                        raise DataError(f"--vectors {path.name}: the header gives dimension {dim}")
                    continue
                if dim is None:
                    dim = len(parts) - 1
                    if dim < 1:
                        raise DataError(
                            f"--vectors {path.name}: line {number} holds no numbers after the word"
                        )
                lines += 1
                if len(parts) < dim + 1 or not parts[0]:
                    bad, first_bad = bad + 1, first_bad or number
                    continue
                if len(parts) > dim + 1 and any(_is_number(p) for p in parts[1:-dim]):
                    bad, first_bad = (
                        bad + 1,
                        first_bad or number,
                    )  # more numbers than DIM: not a word's spaces
                    continue
                word = " ".join(parts[:-dim])
                is_exact = word in wanted and word not in exact
                is_folded = not is_exact and word.lower() in lowered and word.lower() not in folded
                if not (is_exact or is_folded):
                    continue
                try:
                    with np.errstate(over="ignore"):  # beyond float32's range: inf, counted below
                        vector = np.array(parts[-dim:], dtype=np.float32)
                except ValueError:
                    bad, first_bad = bad + 1, first_bad or number
                    continue
                if not np.isfinite(vector).all():
                    bad, first_bad = bad + 1, first_bad or number
                    continue
                (exact if is_exact else folded)[word if is_exact else word.lower()] = vector
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise DataError(f"--vectors {path.name}: cannot read ({one_line(err)})") from None
    if dim is None or lines == 0:
        raise DataError(f"--vectors {path.name}: no word vectors in the file")
    found = np.zeros(len(words), dtype=bool)
    rows: list[np.ndarray] = []
    by_lower = 0
    for i, word in enumerate(words):
        vector = exact.get(word)
        if vector is None:
            vector = folded.get(word.lower())
            by_lower += vector is not None
        if vector is not None:
            found[i] = True
            rows.append(vector)
    if bad and bad == lines:
        raise DataError(
            f"--vectors {path.name}: all {lines:,} lines are malformed (first: line {first_bad}); "
            f"expected WORD and {dim} numbers separated by spaces"
        )
    notes = []
    if bad:
        notes.append(f"--vectors {path.name}: skipped {bad:,} malformed lines (first: line {first_bad})")
    vectors = np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
    return FoundVectors(found, vectors, dim, lines, bad, first_bad, by_lower, notes)
