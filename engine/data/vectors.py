"""Vectors from files: precomputed embeddings with labels (``.npz``) and word vectors (word2vec/GloVe text).

``load_npz(source)``: a NumPy ``.npz`` archive (``np.savez(path, embeddings=E, labels=y)``) read with
``allow_pickle=False``, as a :class:`~engine.data.types.LabelledVectors`. Arrays:

- ``embeddings``: (N, d) numbers, N >= 2, d >= 2, all finite; kept as float32 (no copy when already float32);
- ``labels``: N class labels (integers, whole-number floats or strings), or an (N, L) 0/1 matrix
  (multi-label: one column per label; each distinct row is one cluster for the silhouette);
- optional ``texts`` (N strings, shown beside the points) and ``label_names`` (the names of the integer
  classes 0..C-1, or of the L columns).

Every problem is one :class:`~engine.errors.DataError` line: not an archive, a missing array (the arrays
present are listed), a pickled object array, wrong shapes, NaN or infinite values (counted, the first one
located), labels that are not class indices or 0/1, row counts that differ, a single class.

``read_word_vectors(path, words)``: the vectors of ``words`` in a word2vec/GloVe text file: an optional
header line ``COUNT DIM``, then ``WORD v1 ... vDIM`` per line, separated by single spaces (a word may itself
hold spaces: the last DIM fields are the numbers). ``.gz`` files are read compressed. Exact matches first;
a word missing exactly takes the first line whose word lower-cases to it (word2vec is case-sensitive,
WordNet lower-case). Malformed lines (wrong field count, non-numbers, NaN/inf, undecodable bytes) are
skipped and counted; a binary word2vec file is refused with how to convert it.
"""

from __future__ import annotations

import gzip
import io
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from engine.data.npy_vectors import read_npy_word_vectors
from engine.data.types import LabelledVectors
from engine.errors import DataError, one_line

NPZ_REQUIRED = ("embeddings", "labels")
NPZ_OPTIONAL = ("texts", "label_names")
SAVE_HINT = "save it with np.savez(FILE, embeddings=E, labels=y)"
_CHECK_ROWS = 65_536  # finiteness is checked in row blocks: no full-size boolean temporary


# --------------------------------------------------------------------------------------------- .npz
def load_npz(source: str | os.PathLike | bytes | IO[bytes], *, name: str | None = None) -> LabelledVectors:
    """A ``.npz`` archive of ``embeddings`` and ``labels`` (see the module docstring), checked.

    ``source``: a path, the file's bytes (an upload) or a binary file object; ``name`` names it in messages.
    """
    label, handle = _npz_source(source, name)
    try:
        archive = np.load(handle, allow_pickle=False)
    except FileNotFoundError:
        raise DataError(f"{label}: no such file") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
        raise DataError(f"{label}: not a NumPy .npz archive ({one_line(err)}); {SAVE_HINT}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise DataError(
            f"{label}: a single .npy array, not an .npz archive of embeddings and labels; {SAVE_HINT}"
        )
    with archive:
        present = list(archive.files)
        missing = [key for key in NPZ_REQUIRED if key not in present]
        if missing:
            shown = ", ".join(repr(k) for k in present[:10]) or "none"
            raise DataError(f"{label}: no array {missing[0]!r} (arrays: {shown}); {SAVE_HINT}")
        notes = []
        extra = [key for key in present if key not in NPZ_REQUIRED + NPZ_OPTIONAL]
        if extra:
            notes.append(f"ignored arrays: {', '.join(extra[:10])}")
        embeddings = _checked_embeddings(label, _array(archive, "embeddings", label))
        n = len(embeddings)
        raw_labels = _array(archive, "labels", label)
        names = (
            _strings(label, "label_names", _array(archive, "label_names", label))
            if "label_names" in present
            else None
        )
        texts = _strings(label, "texts", _array(archive, "texts", label)) if "texts" in present else None
    if texts is not None and len(texts) != n:
        raise DataError(f"{label}: {n:,} embeddings but {len(texts):,} texts (one text per row)")
    labels, class_names, label_notes = _labels(label, raw_labels, n, names)
    dataset = LabelledVectors(
        Path(label).stem, embeddings, labels, class_names, texts, warnings=notes + label_notes, source=label
    )
    clusters = len(np.unique(dataset.cluster_ids()))
    if clusters < 2:
        raise DataError(
            f"{label}: every row has the same label{' set' if dataset.is_multilabel else ''}; "
            "a classifier needs at least 2 classes"
        )
    return dataset


def _npz_source(source: Any, name: str | None) -> tuple[str, Any]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return name or "upload.npz", io.BytesIO(bytes(source))
    if isinstance(source, (str, os.PathLike)):
        path = Path(source).expanduser()
        if path.is_dir():
            raise DataError(f"{name or path.name}: is a folder, not an .npz file")
        return name or path.name, str(path)
    if hasattr(source, "read"):
        return name or str(getattr(source, "name", "upload.npz")), source
    raise DataError(f"an .npz source must be a path, bytes or a binary file, got {type(source).__name__}")


def _array(archive: Any, key: str, label: str) -> np.ndarray:
    try:
        return archive[key]
    except ValueError as err:
        if "allow_pickle" in str(err):
            raise DataError(
                f"{label}: array {key!r} holds Python objects (a pickled object array), which are "
                "never loaded (allow_pickle=False); save numbers or fixed-width strings, e.g. "
                f"np.asarray({key}, dtype=float) or dtype=str"
            ) from None
        raise DataError(f"{label}: array {key!r} cannot be read ({one_line(err)})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as err:
        raise DataError(
            f"{label}: array {key!r} cannot be read ({one_line(err)}); is the file complete?"
        ) from None


def _checked_embeddings(label: str, raw: np.ndarray) -> np.ndarray:
    if raw.ndim != 2:
        raise DataError(
            f"{label}: embeddings must be a 2-D array (items x dimensions), got shape {raw.shape}"
        )
    if raw.dtype.kind not in "fiub":
        raise DataError(f"{label}: embeddings must be numbers, got dtype {raw.dtype}")
    n, d = raw.shape
    raw_kind = raw.dtype.kind
    if n < 2 or d < 2:
        raise DataError(f"{label}: embeddings of shape {raw.shape}: need at least 2 rows and 2 columns")
    with np.errstate(over="ignore"):  # float64 beyond float32's range becomes inf, reported below
        embeddings = np.ascontiguousarray(raw, dtype=np.float32)  # no copy when already float32, C order
    del raw
    bad, first = 0, None
    for start in range(0, n, _CHECK_ROWS):
        block = embeddings[start : start + _CHECK_ROWS]
        finite = np.isfinite(block)
        if not finite.all():
            bad += int(finite.size - finite.sum())
            if first is None:
                row, col = np.argwhere(~finite)[0]
                first = (start + int(row), int(col))
    if bad:
        extra = " (values beyond float32's range count too)" if raw_kind == "f" else ""
        raise DataError(
            f"{label}: embeddings hold {bad:,} NaN or infinite values (first: row {first[0]}, "
            f"column {first[1]}){extra}"
        )
    return embeddings


def _strings(label: str, key: str, raw: np.ndarray) -> list[str]:
    if raw.ndim != 1 or raw.dtype.kind not in "US":
        raise DataError(
            f"{label}: {key} must be a 1-D array of strings, got dtype {raw.dtype} shape {raw.shape}"
        )
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in raw.tolist()]


def _labels(
    label: str, raw: np.ndarray, n: int, names: list[str] | None
) -> tuple[np.ndarray, list[str], list[str]]:
    """(labels, class names, notes): class indices (n,) int64, or (n, L) float32 0/1."""
    if raw.ndim not in (1, 2):
        raise DataError(
            f"{label}: labels must be N class labels or an N x L 0/1 matrix, got shape {raw.shape}"
        )
    if len(raw) != n:
        raise DataError(f"{label}: {n:,} embeddings but {len(raw):,} labels (one label per row)")
    if raw.ndim == 2:
        return _multi_hot(label, raw, names)
    if raw.dtype.kind in "US":
        values = np.array([v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in raw.tolist()])
        if names is not None:
            raise DataError(
                f"{label}: label_names is for integer labels or 0/1 columns; the labels are strings"
            )
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), [str(u) for u in uniques], []
    if raw.dtype.kind == "f":
        finite = np.isfinite(raw)
        whole = finite & (raw == np.round(raw))
        if not whole.all():
            row = int(np.argmin(whole))
            raise DataError(
                f"{label}: labels must be class indices, got {raw[row].item()!r} at row {row}; for "
                "multi-label give an N x L 0/1 matrix"
            )
    elif raw.dtype.kind not in "iub":
        raise DataError(f"{label}: labels must be integers or strings, got dtype {raw.dtype}")
    values = raw.astype(np.int64)
    uniques, codes = np.unique(values, return_inverse=True)
    if names is None:
        class_names = [str(int(u)) for u in uniques]
    else:
        if uniques.min() < 0 or uniques.max() >= len(names):
            raise DataError(
                f"{label}: label {int(uniques.max() if uniques.max() >= len(names) else uniques.min())} "
                f"has no name: label_names holds {len(names)} names for classes 0..{len(names) - 1}"
            )
        class_names = [names[int(u)] for u in uniques]
    return codes.reshape(-1).astype(np.int64), class_names, []


def _multi_hot(
    label: str, raw: np.ndarray, names: list[str] | None
) -> tuple[np.ndarray, list[str], list[str]]:
    width = raw.shape[1]
    if width < 1:
        raise DataError(f"{label}: a multi-label matrix needs at least one column, got shape {raw.shape}")
    if raw.dtype.kind not in "fiub":
        raise DataError(f"{label}: multi-label labels must be 0/1 numbers, got dtype {raw.dtype}")
    binary = (raw == 0) | (raw == 1)
    if not binary.all():
        row, col = np.argwhere(~binary)[0]
        raise DataError(
            f"{label}: a multi-label matrix must hold only 0 and 1, got {raw[row, col].item()!r} at row {row}, "
            f"column {col}"
        )
    if names is not None and len(names) != width:
        raise DataError(f"{label}: {width} label columns but {len(names)} label_names")
    targets = raw.astype(np.float32)
    notes = []
    empty = int((targets.sum(axis=1) == 0).sum())
    if empty:
        notes.append(f"{empty:,} rows have no label at all (the empty set is one more cluster)")
    return targets, names if names is not None else [str(i) for i in range(width)], notes


# ------------------------------------------------------------------------------------- word vectors
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


def _open_text(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def read_word_vectors(path: str | os.PathLike, words: Iterable[str]) -> FoundVectors:
    """The vectors of ``words`` in a word2vec/GloVe text file (see the module docstring)."""
    path = Path(path).expanduser()
    words = list(words)
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
            for number, raw in enumerate(handle, start=1):
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
