"""``--vectors NAME.npy`` with its vocabulary beside it (engine.data.npy_vectors): the rows of the words,
matched as the text format, and one DataError line for every bad pair of files, never a hang."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.core.errors import DataError
from engine.data import read_word_vectors

VOCAB = ["the", "Cat", "sat", "on", "mat"]


def _pair(folder: Path, array: np.ndarray, vocab: list[str] | str, vocab_name: str = "vocab.txt") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / "vectors.npy", array)
    text = vocab if isinstance(vocab, str) else "\n".join(vocab) + "\n"
    (folder / vocab_name).write_text(text, encoding="utf-8")
    return folder / "vectors.npy"


def test_the_rows_of_the_words_exact_then_lower_case(tmp_path: Path) -> None:
    array = np.arange(15, dtype=np.float64).reshape(5, 3)
    found = read_word_vectors(_pair(tmp_path, array, VOCAB), ["mat", "cat", "dog", "the", "the"])
    assert found.found.tolist() == [True, True, False, True, True] and found.dim == 3 and found.lines == 5
    np.testing.assert_array_equal(found.vectors, array[[4, 1, 0, 0]].astype(np.float32))
    assert found.vectors.dtype == np.float32 and found.lowercase_matches == 1 and not found.notes


@pytest.mark.parametrize("vocab_name", ["vectors.vocab", "vectors.vocab.txt", "vocab.txt"])
def test_vocabulary_names_and_the_word_count_format(tmp_path: Path, vocab_name: str) -> None:
    lines = [f"{w} {100 - i}" for i, w in enumerate(VOCAB)]  # GloVe / fastText: WORD COUNT
    path = _pair(tmp_path, np.eye(5, dtype=np.float32), lines, vocab_name)
    found = read_word_vectors(path, ["sat", "on"])
    np.testing.assert_array_equal(found.vectors, np.eye(5, dtype=np.float32)[[2, 3]])


def test_rows_with_nan_or_inf_are_skipped_and_counted(tmp_path: Path) -> None:
    array = np.ones((5, 2))
    array[1, 0], array[3, 1] = np.nan, 1e300  # 1e300 is inf in float32
    found = read_word_vectors(_pair(tmp_path, array, VOCAB), ["cat", "on", "sat"])
    assert found.found.tolist() == [False, False, True] and found.bad_lines == 2 and found.first_bad == 1
    assert found.notes == ["--vectors vectors.npy: skipped 2 rows with NaN/inf (first: row 1)"]


@pytest.mark.parametrize(
    ("array", "vocab", "message"),
    [
        (np.ones((4, 2)), VOCAB, "has 5 lines but the array 4 rows"),
        (np.ones((5, 0)), VOCAB, "at least one number"),
        (np.ones((5, 2, 2)), VOCAB, "expected an \\(N, DIM\\) array of numbers, got shape \\(5, 2, 2\\)"),
        (np.array([["a", "b"]] * 5), VOCAB, "array of numbers"),
        (np.ones((5, 2), dtype=bool), VOCAB, "array of numbers"),
        (np.ones((5, 2)), "\ud800".encode("utf-8", "surrogatepass").decode("latin-1"), "has"),
    ],
)
def test_bad_pairs_are_one_line(tmp_path: Path, array: np.ndarray, vocab, message: str) -> None:
    with pytest.raises(DataError, match=message) as caught:
        read_word_vectors(_pair(tmp_path, array, vocab), ["the"])
    assert "\n" not in str(caught.value)


def test_missing_files_pickles_archives_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_word_vectors(tmp_path / "absent.npy", ["the"])
    np.save(tmp_path / "alone.npy", np.ones((2, 2)))
    with pytest.raises(
        DataError, match="no vocabulary beside it \\(alone.vocab, alone.vocab.txt, vocab.txt\\)"
    ):
        read_word_vectors(tmp_path / "alone.npy", ["the"])
    (tmp_path / "vocab.txt").write_text("a\nb\n")
    np.save(tmp_path / "objects.npy", np.array([[{"x": 1}, None]] * 2, dtype=object), allow_pickle=True)
    with pytest.raises(DataError, match="not a NumPy .npy array"):
        read_word_vectors(tmp_path / "objects.npy", ["a"])
    (tmp_path / "pickled.npy").write_bytes(pickle.dumps(np.ones((2, 2))))
    with pytest.raises(DataError, match="not a NumPy .npy array"):
        read_word_vectors(tmp_path / "pickled.npy", ["a"])
    np.savez(tmp_path / "archive.npz", a=np.ones((2, 2)))
    os.replace(tmp_path / "archive.npz", tmp_path / "archive.npy")
    with pytest.raises(DataError, match="a .npz archive"):
        read_word_vectors(tmp_path / "archive.npy", ["a"])
    (tmp_path / "vocab.txt").write_bytes(b"a\n\xff\xfe\n")
    with pytest.raises(DataError, match="vocab.txt is not UTF-8 text"):
        read_word_vectors(tmp_path / "alone.npy", ["a"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
@pytest.mark.timeout(60)
def test_named_pipes_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.npy")
    with pytest.raises(DataError, match="not a regular file \\(a named pipe\\)"):
        read_word_vectors(tmp_path / "pipe.npy", ["a"])
    np.save(tmp_path / "v.npy", np.ones((1, 2)))
    os.mkfifo(tmp_path / "v.vocab")
    with pytest.raises(DataError, match="no vocabulary beside it"):
        read_word_vectors(tmp_path / "v.npy", ["a"])


DTYPES = st.sampled_from(["<f2", "<f4", ">f8", "<i4", "<u2", "|b1", "<c8", "<U3"])
#: words without white space or line breaks (arbitrary bytes are the next test's)
WORD = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=5)


@st.composite
def pairs(draw) -> tuple[np.ndarray, list[str], list[str]]:
    """Mostly a 2-D number array with one word per row; else another shape, dtype or vocabulary length;
    and words to look up, many of them in the vocabulary (as they are, upper- or lower-cased)."""
    rows, dim = draw(st.integers(0, 6)), draw(st.integers(0, 4))
    if draw(st.booleans()):
        array = draw(hnp.arrays(st.sampled_from(["<f2", "<f4", ">f8", "<i4", "<u2"]), (rows, dim)))
    else:
        array = draw(hnp.arrays(DTYPES, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6)))
    length = rows if draw(st.integers(0, 4)) else draw(st.integers(0, 8))
    vocab = draw(st.lists(WORD | st.sampled_from(["a", "A", "b"]), min_size=length, max_size=length))
    cased = st.sampled_from([str, str.upper, str.lower])
    known = st.tuples(st.sampled_from(vocab), cased).map(lambda pair: pair[1](pair[0])) if vocab else WORD
    words = draw(st.lists(WORD | known, max_size=6))
    return array, vocab, words


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=pairs())
@pytest.mark.timeout(300)
def test_any_array_and_vocabulary_gives_vectors_or_one_line(tmp_path: Path, case) -> None:
    array, vocab, words = case
    folder = tmp_path / f"case-{os.urandom(4).hex()}"
    try:
        found = read_word_vectors(_pair(folder, array, vocab), words)
    except DataError as err:
        assert "\n" not in str(err) and str(err).startswith("--vectors vectors.npy: ")
        assert (
            array.ndim != 2
            or array.dtype.kind not in "fiu"
            or len(vocab) != array.shape[0]
            or 0 in array.shape
        )
        return
    event("read" + (", some found" if found.found.any() else ""))
    assert array.ndim == 2 and array.dtype.kind in "fiu" and found.dim == array.shape[1]
    assert found.found.shape == (len(words),) and found.vectors.shape == (int(found.found.sum()), found.dim)
    assert found.vectors.dtype == np.float32 and np.isfinite(found.vectors).all()
    with np.errstate(over="ignore"):
        table = array.astype(np.float32)
    rows = iter(found.vectors)
    for word, ok in zip(words, found.found, strict=True):
        exact = [i for i, v in enumerate(vocab) if v == word]
        folded = [i for i, v in enumerate(vocab) if v.lower() == word.lower()]
        # the first exact row, else the first row of the first word that lower-cases to it
        first = exact[0] if exact else (vocab.index(vocab[folded[0]]) if folded else None)
        assert ok == (first is not None and bool(np.isfinite(table[first]).all()))
        if ok:
            np.testing.assert_array_equal(next(rows), table[first])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300), vocab=st.binary(max_size=60))
@pytest.mark.timeout(300)
def test_any_bytes_give_vectors_or_one_line(tmp_path: Path, content: bytes, vocab: bytes) -> None:
    folder = tmp_path / f"case-{os.urandom(4).hex()}"
    folder.mkdir()
    (folder / "vectors.npy").write_bytes(
        np.lib.format.MAGIC_PREFIX + content if content[:1] == b"\x01" else content
    )
    (folder / "vocab.txt").write_bytes(vocab)
    try:
        found = read_word_vectors(folder / "vectors.npy", ["a", "b"])
    except DataError as err:
        assert "\n" not in str(err)
        return
    assert found.vectors.shape[0] == int(found.found.sum())


def test_the_probe_takes_an_npy_pair_as_vectors(tmp_path: Path) -> None:
    from engine.probe import ProbeConfig, build_problem

    (tmp_path / "wordnet").mkdir()
    rows = ["word\tpos\tsupersenses\tsynsets"] + [
        f"{w}\tnoun\tnoun.{'animal' if i % 2 else 'artifact'}\t1"
        for i, w in enumerate(["cat", "mat", "on", "sat"])
    ]
    (tmp_path / "wordnet" / "wordnet-words.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    vectors = _pair(tmp_path / "vec", np.arange(10, dtype=np.float32).reshape(5, 2), VOCAB)
    config = ProbeConfig(data="wordnet-noun-supersenses", data_dir=str(tmp_path), vectors=str(vectors))
    problem = build_problem(config, encode=None)
    assert list(problem.texts) == ["cat", "mat", "on", "sat"]  # "cat" by lower case, from "Cat"
    np.testing.assert_array_equal(problem.embeddings[:, 0], [2, 8, 6, 4])
