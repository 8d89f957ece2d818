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


class _Scan:
    """One pass over a vectors file: the vectors of the wanted words (exact, and lower-cased for the words
    missing exactly), the dimension, and the lines read and skipped as malformed."""

    def __init__(self, path: Path, words: list[str]):
        self.name = path.name
        self.words = words
        self.wanted = set(words)
        self.lowered = {w.lower() for w in words}
        self.exact: dict[str, np.ndarray] = {}
        self.folded: dict[str, np.ndarray] = {}
        self.dim: int | None = None
        self.lines = self.bad = 0
        self.first_bad: int | None = None

    def skip(self, number: int) -> None:
        """Line ``number`` is malformed: counted, its number kept when it is the first."""
        self.bad, self.first_bad = self.bad + 1, self.first_bad or number

    def read(self, number: int, raw: bytes | None) -> None:
        """Line ``number`` of the file (None: longer than :data:`MAX_VECTOR_LINE`)."""
        if raw is None:
            self.lines += 1
            self.skip(number)
            return
        try:
            line = raw.decode("utf-8").rstrip("\r\n").rstrip(" ")
        except UnicodeDecodeError:
            if number <= 2 and (self.dim is not None or number == 1):
                raise DataError(
                    f"--vectors {self.name}: line {number} is not UTF-8 text: a binary word2vec file? Save "
                    "it as text (gensim: KeyedVectors.save_word2vec_format(FILE, binary=False))"
                ) from None
            self.skip(number)
            return
        if line:
            self.fields(number, line.split(" "))

    def fields(self, number: int, parts: list[str]) -> None:
        """A non-empty line's fields: the word2vec header ``COUNT DIM``, else ``WORD v1 ... vDIM``."""
        if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
            self.dim = int(parts[1])  # word2vec header: COUNT DIM
            if self.dim < 1:
                raise DataError(f"--vectors {self.name}: the header gives dimension {self.dim}")
            return
        if self.dim is None:
            self.dim = len(parts) - 1
            if self.dim < 1:
                raise DataError(f"--vectors {self.name}: line {number} holds no numbers after the word")
        self.lines += 1
        dim = self.dim
        if len(parts) < dim + 1 or not parts[0]:
            self.skip(number)
        elif len(parts) > dim + 1 and any(_is_number(p) for p in parts[1:-dim]):
            self.skip(number)  # more numbers than DIM: not a word's spaces
        else:
            self.vector(number, " ".join(parts[:-dim]), parts[-dim:])

    def vector(self, number: int, word: str, numbers: list[str]) -> None:
        """Keep ``word``'s vector when it is wanted (exactly, else lower-cased) and not found yet."""
        is_exact = word in self.wanted and word not in self.exact
        is_folded = not is_exact and word.lower() in self.lowered and word.lower() not in self.folded
        if not (is_exact or is_folded):
            return
        try:
            with np.errstate(over="ignore"):  # beyond float32's range: inf, counted below
                vector = np.array(numbers, dtype=np.float32)
        except ValueError:
            self.skip(number)
            return
        if not np.isfinite(vector).all():
            self.skip(number)
            return
        (self.exact if is_exact else self.folded)[word if is_exact else word.lower()] = vector

    def found(self) -> FoundVectors:
        """The vectors of the words in their order (an exact match first, else the lower-cased one)."""
        if self.dim is None or self.lines == 0:
            raise DataError(f"--vectors {self.name}: no word vectors in the file")
        if self.bad and self.bad == self.lines:
            raise DataError(
                f"--vectors {self.name}: all {self.lines:,} lines are malformed (first: line "
                f"{self.first_bad}); expected WORD and {self.dim} numbers separated by spaces"
            )
        found = np.zeros(len(self.words), dtype=bool)
        rows: list[np.ndarray] = []
        by_lower = 0
        for i, word in enumerate(self.words):
            vector = self.exact.get(word)
            if vector is None:
                vector = self.folded.get(word.lower())
                by_lower += vector is not None
            if vector is not None:
                found[i] = True
                rows.append(vector)
        notes = []
        if self.bad:
            notes.append(
                f"--vectors {self.name}: skipped {self.bad:,} malformed lines (first: line {self.first_bad})"
            )
        vectors = np.stack(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)
        return FoundVectors(found, vectors, self.dim, self.lines, self.bad, self.first_bad, by_lower, notes)


def read_word_vectors(path: str | os.PathLike, words: Iterable[str]) -> FoundVectors:
    """The vectors of ``words`` in a word2vec/GloVe text file (see the module docstring)."""
    path = Path(path).expanduser()
    words = list(words)
    check_regular(path, f"--vectors {path.name}")
    if path.suffix.lower() == ".npy":  # a NAME.npy array with its vocabulary beside it
        return FoundVectors(**read_npy_word_vectors(path, words))
    if not path.is_file():
        raise DataError(f"--vectors {path}: no such file")
    scan = _Scan(path, words)
    try:
        with _open_text(path) as handle:
            for number, raw in enumerate(_lines(handle), start=1):
                if number % 65_536 == 0:
                    stopping.check()  # a run stopped while it reads a large vectors file ends here
                scan.read(number, raw)
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise DataError(f"--vectors {path.name}: cannot read ({one_line(err)})") from None
    return scan.found()
