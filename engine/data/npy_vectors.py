"""Word vectors packaged as a NumPy array and a vocabulary list: ``NAME.npy`` (N, DIM) numbers, and beside it
``NAME.vocab``, ``NAME.vocab.txt`` or ``vocab.txt`` with the word of row i on line i (many packaged vector
sets ship this pair). ``--vectors NAME.npy`` reads it through :func:`engine.data.read_word_vectors`, which
wraps the result as its ``FoundVectors``; no pickle is ever loaded (``allow_pickle=False``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engine.core.errors import DataError, one_line

#: vocabulary files looked for beside ``NAME.npy``, in this order
NPY_VOCAB_NAMES = ("{stem}.vocab", "{stem}.vocab.txt", "vocab.txt")


def read_npy_word_vectors(path: Path, words: list[str]) -> dict[str, Any]:
    """The vectors of ``words`` in a ``NAME.npy`` (N, DIM) number array with its vocabulary beside it
    (``NAME.vocab``, ``NAME.vocab.txt`` or ``vocab.txt``: N lines, line i the word of row i; a line
    ``WORD COUNT`` keeps WORD, as GloVe's and fastText's vocabulary files have it). ``np.load`` with
    ``allow_pickle=False``, memory-mapped: only the rows of ``words`` are read. Matching as the text format
    (exact words first, then lower-cased); rows with NaN/inf are skipped and counted. Every problem is one
    DataError line."""
    label = f"--vectors {path.name}"
    if not path.is_file():
        raise DataError(f"{label}: no such file")
    candidates = [path.with_name(name.format(stem=path.stem)) for name in NPY_VOCAB_NAMES]
    vocab_path = next((c for c in candidates if c.is_file()), None)
    if vocab_path is None:
        raise DataError(f"{label}: no vocabulary beside it ({', '.join(c.name for c in candidates)})")
    try:
        text = vocab_path.read_bytes().decode("utf-8-sig")
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except UnicodeDecodeError as err:
        raise DataError(f"{label}: {vocab_path.name} is not UTF-8 text (byte {err.start})") from None
    except (OSError, ValueError, EOFError, OverflowError) as err:
        raise DataError(f"{label}: not a NumPy .npy array ({one_line(err)})") from None
    if not isinstance(array, np.ndarray):  # a .npz archive under a .npy name
        array.close()
        raise DataError(f"{label}: a .npz archive, not a .npy array")
    if array.ndim != 2 or array.dtype.kind not in "fiu":
        shape = getattr(array, "shape", "?")
        kind = getattr(array, "dtype", "?")
        raise DataError(f"{label}: expected an (N, DIM) array of numbers, got shape {shape} of {kind}")
    vocab = []
    for line in text.removesuffix("\n").split("\n"):  # a final newline ends the last line
        fields = line.split()
        vocab.append(fields[0] if len(fields) == 2 and fields[1].isdigit() else line.strip())
    if len(vocab) != array.shape[0] or array.shape[1] < 1 or not array.shape[0]:
        raise DataError(
            f"{label}: {vocab_path.name} has {len(vocab):,} lines but the array {array.shape[0]:,} rows of "
            f"{array.shape[1]} numbers; expected one word per row and at least one number"
        )
    rows: dict[str, int] = {}
    for index, word in enumerate(vocab):
        if word:
            rows.setdefault(word, index)
    lowered: dict[str, int] = {}
    for word, index in rows.items():
        lowered.setdefault(word.lower(), index)
    picks = [rows.get(w, lowered.get(w.lower(), -1)) for w in words]
    by_lower = sum(w not in rows and p >= 0 for w, p in zip(words, picks, strict=True))
    wanted = np.array([p for p in picks if p >= 0], dtype=np.int64)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            chosen = np.asarray(array[np.sort(np.unique(wanted))], dtype=np.float32)
    except (OSError, ValueError, OverflowError) as err:
        raise DataError(f"{label}: cannot read the array ({one_line(err)})") from None
    finite = np.isfinite(chosen).all(axis=1)
    position = {int(r): i for i, r in enumerate(np.sort(np.unique(wanted)))}
    found = np.array([p >= 0 and bool(finite[position[p]]) for p in picks], dtype=bool)
    vectors = chosen[[position[p] for p, ok in zip(picks, found, strict=True) if ok]].reshape(
        -1, array.shape[1]
    )
    bad_rows = sorted(int(r) for r, i in position.items() if not finite[i])
    notes = (
        [f"{label}: skipped {len(bad_rows):,} rows with NaN/inf (first: row {bad_rows[0]})"]
        if bad_rows
        else []
    )
    return dict(
        found=found,
        vectors=vectors,
        dim=int(array.shape[1]),
        lines=int(array.shape[0]),
        bad_lines=len(bad_rows),
        first_bad=bad_rows[0] if bad_rows else None,
        lowercase_matches=int(by_lower),
        notes=notes,
    )
