"""Property-based test of every data-file reader (issue 24): CSV, TSV, JSONL, JSON, TXT, .npz and word-vector
files of random content (valid tables, garbage bytes, cut archives, pickled arrays, named pipes). Properties:
a reader returns or raises the one-line user error (EmbedlabError), never another exception; it never hangs
(a named pipe is refused at once); the memory it takes is bounded by a small multiple of the file."""

from __future__ import annotations

import io
import json
import os
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.errors import EmbedlabError
from engine.data import load_dataset, read_word_vectors

_FAST = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
_CELLS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_ROWS = st.lists(st.lists(_CELLS, min_size=1, max_size=4), min_size=0, max_size=8)
BOUND = 32 * 2**20  # bytes a reader may take beyond 20 times the file (parsers, frames, checks)


def _table(rows: list[list[str]], sep: str) -> bytes:
    header = sep.join(["text", "label", "x", "y"][: max((len(r) for r in rows), default=1)])
    return ("\n".join([header, *(sep.join(r) for r in rows)]) + "\n").encode("utf-8")


def _jsonl(rows: list[list[str]]) -> bytes:
    return "\n".join(
        json.dumps(dict(zip(["text", "label", "x", "y"], r, strict=False))) for r in rows
    ).encode()


def _npz(n: int, d: int, kind: str, labels: str, texts: bool) -> bytes:
    arrays: dict[str, object] = {}
    if kind == "float":
        arrays["embeddings"] = np.random.default_rng(n * 7 + d).normal(size=(n, d))
    elif kind == "nan":
        arrays["embeddings"] = np.full((n, d), np.nan)
    elif kind == "text":
        arrays["embeddings"] = np.array([["a"] * d] * n)
    elif kind == "object":
        arrays["embeddings"] = np.array([[{"a": 1}] * d] * n, dtype=object)
    if labels == "ints":
        arrays["labels"] = np.arange(n) % 3
    elif labels == "strings":
        arrays["labels"] = np.array([f"c{i % 2}" for i in range(n)])
    elif labels == "multi":
        arrays["labels"] = (np.arange(n * 2).reshape(n, 2) % 3).astype(float)
    if texts:
        arrays["texts"] = np.array([f"item {i}" for i in range(n + (n % 2))])
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


_NPZ = st.builds(
    _npz,
    st.integers(0, 6),
    st.integers(0, 4),
    st.sampled_from(["float", "nan", "text", "object", "none"]),
    st.sampled_from(["ints", "strings", "multi", "none"]),
    st.booleans(),
)
_CONTENT = st.one_of(
    st.tuples(st.just(".csv"), _ROWS.map(lambda r: _table(r, ","))),
    st.tuples(st.just(".tsv"), _ROWS.map(lambda r: _table(r, "\t"))),
    st.tuples(st.just(".jsonl"), _ROWS.map(_jsonl)),
    st.tuples(st.just(".json"), _ROWS.map(lambda r: json.dumps([{"text": c[0]} for c in r]).encode())),
    st.tuples(st.just(".txt"), _ROWS.map(lambda r: "\n".join(" ".join(c) for c in r).encode())),
    st.tuples(st.just(".npz"), _NPZ),
    st.tuples(st.sampled_from([".csv", ".tsv", ".jsonl", ".txt", ".npz", ".json"]), st.binary(max_size=300)),
)


def _damaged(content: bytes, cut: float, flips: list[int]) -> bytes:
    raw = bytearray(content[: max(1, int(len(content) * cut))] if cut < 1 else content)
    for position in flips:
        if raw:
            raw[position % len(raw)] ^= 0xFF
    return bytes(raw)


def _read_within_bounds(read, size: int) -> None:
    tracemalloc.start()
    try:
        read()
    except EmbedlabError as err:
        assert "\n" not in str(err) and str(err).strip()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < BOUND + 20 * size, f"{peak / 2**20:.1f} MB for a {size}-byte file"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=_CONTENT,
    cut=st.sampled_from([1.0, 1.0, 0.5, 0.9]),
    flips=st.lists(st.integers(0, 10_000), max_size=3),
    pipe=st.integers(0, 9),
)
@pytest.mark.timeout(120)
def test_a_data_file_is_read_or_refused_in_one_line(content, cut, flips, pipe) -> None:
    ext, raw = content
    with tempfile.TemporaryDirectory(dir=_FAST) as tmp:
        path = Path(tmp) / f"data{ext}"
        if pipe == 0:
            os.mkfifo(path)  # a named pipe: refused at once, never waited on
        else:
            path.write_bytes(_damaged(raw, cut, flips))
        _read_within_bounds(lambda: load_dataset(str(path)), len(raw))


_VECTOR_LINES = st.lists(
    st.tuples(
        st.text(st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=6),
        st.lists(st.one_of(st.floats(allow_nan=True), st.just("x")), min_size=0, max_size=4),
    ),
    max_size=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=_VECTOR_LINES, header=st.booleans(), flips=st.lists(st.integers(0, 10_000), max_size=2))
@pytest.mark.timeout(120)
def test_a_word_vectors_file_is_read_or_refused_in_one_line(lines, header, flips) -> None:
    text = "".join(f"{word} {' '.join(map(str, values))}\n" for word, values in lines)
    if header:
        text = f"{len(lines)} 3\n{text}"
    raw = _damaged(text.encode("utf-8"), 1.0, flips)
    with tempfile.TemporaryDirectory(dir=_FAST) as tmp:
        path = Path(tmp) / "vectors.txt"
        path.write_bytes(raw)
        words = [word for word, _ in lines][:3] or ["the"]
        _read_within_bounds(lambda: read_word_vectors(path, words), len(raw))
