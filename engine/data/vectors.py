"""Vectors from files: precomputed embeddings with labels (``.npz``) and word vectors (word2vec/GloVe text).

``load_npz(source)``: a NumPy ``.npz`` archive (``np.savez(path, embeddings=E, labels=y)``) read with
``allow_pickle=False``, as a :class:`~engine.data.types.LabelledVectors`. Arrays:

- ``embeddings``: (N, d) numbers, N >= 2, d >= 2, all finite; kept as float32 (no copy when already float32);
- ``labels``: N class labels (integers, whole-number floats or strings), or an (N, L) 0/1 matrix
  (multi-label: one column per label; each distinct row is one cluster for the silhouette);
- optional ``texts`` (N strings, shown beside the points) and ``label_names`` (the names of the integer
  classes 0..C-1, or of the L columns).

Every problem is one :class:`~engine.core.errors.DataError` line: not an archive, a missing array (the arrays
present are listed), a pickled object array, wrong shapes, NaN or infinite values (counted, the first one
located), labels that are not class indices or 0/1, row counts that differ, a single class.

``read_word_vectors(path, words)`` (word2vec/GloVe text) lives in :mod:`engine.data.word_vectors` and is
re-exported here.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from engine.core.errors import DataError, one_line
from engine.core.safe_open import check_regular
from engine.data.types import LabelledVectors
from engine.data.word_vectors import FoundVectors, read_word_vectors

__all__ = ["FoundVectors", "load_npz", "read_word_vectors"]

NPZ_REQUIRED = ("embeddings", "labels")
NPZ_OPTIONAL = ("texts", "label_names")
SAVE_HINT = "save it with np.savez(FILE, embeddings=E, labels=y)"
_CHECK_ROWS = 65_536  # finiteness is checked in row blocks: no full-size boolean temporary
#: an archive whose arrays unpack to more than this many times its own size, and to more than
#: :data:`BOMB_FLOOR` bytes, is refused before anything is unpacked (a few MB of zeros can unpack to many GB;
#: embeddings, being noise-like floats, compress less than 2 times)
BOMB_RATIO = 8
BOMB_FLOOR = 256 * 2**20


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
        _refuse_bomb(label, archive, handle)
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
        check_regular(path, name or path.name)  # a named pipe would block np.load
        return name or path.name, str(path)
    if hasattr(source, "read"):
        return name or str(getattr(source, "name", "upload.npz")), source
    raise DataError(f"an .npz source must be a path, bytes or a binary file, got {type(source).__name__}")


def _refuse_bomb(label: str, archive: Any, handle: Any) -> None:
    """DataError when the archive's members unpack to far more than the archive (see :data:`BOMB_RATIO`)."""
    unpacked = sum(info.file_size for info in archive.zip.infolist())
    packed = _size_of(handle)
    if packed is not None and unpacked > max(BOMB_RATIO * packed, BOMB_FLOOR):
        raise DataError(
            f"{label}: its arrays unpack to {unpacked / 2**20:,.0f} MB from {packed / 2**20:,.1f} MB, more "
            f"than {BOMB_RATIO} times its size: refused unread (save embeddings with np.savez, uncompressed)"
        )


def _size_of(handle: Any) -> int | None:
    if isinstance(handle, str):
        return os.path.getsize(handle)
    try:
        position = handle.tell()
        size = handle.seek(0, os.SEEK_END)
        handle.seek(position)
        return int(size)
    except (OSError, AttributeError, ValueError):
        return None


def _array(archive: Any, key: str, label: str) -> np.ndarray:
    """The archive's array ``key``; a member that is no ``.npy`` (numpy hands its raw bytes: a pickle put in
    the zip by hand) is one DataError line, not an AttributeError later (issue 47)."""
    try:
        found = archive[key]
        if not isinstance(found, np.ndarray):
            raise DataError(
                f"{label}: {key!r} is not a NumPy array (a raw member of the archive, e.g. a pickle); "
                f"save the arrays with np.savez, e.g. np.savez(path, {key}=...)"
            )
        return found
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
            f"{label}: a multi-label matrix must hold only 0 and 1, got {raw[row, col].item()!r} "
            f"at row {row}, "
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
