"""Only regular files are read: a named pipe given as data is one line naming it, never a hang (issue 24,
item 2); reading a 50 MB data file of any shape stays within bounded memory (item 4)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine.core.errors import DataError
from engine.data import load_dataset, load_npz, read_table, read_word_vectors

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["x.csv", "x.tsv", "x.jsonl", "x.txt", "x.npz", "sts-dev.csv", "x"])
def test_a_named_pipe_as_data_is_one_line_not_a_hang(tmp_path: Path, name: str) -> None:
    pipe = tmp_path / name
    os.mkfifo(pipe)
    with pytest.raises(DataError, match=rf"^{name}: not a regular file \(a named pipe\)"):
        load_dataset(str(pipe))


@pytest.mark.timeout(60)
def test_every_data_reader_refuses_a_named_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "vectors.txt"
    os.mkfifo(pipe)
    for read in (
        lambda: read_table(pipe),
        lambda: load_npz(pipe),
        lambda: read_word_vectors(pipe, ["a"]),
    ):
        with pytest.raises(DataError, match="not a regular file"):
            read()


@pytest.mark.timeout(120)
def test_a_named_pipe_as_cli_data_ends_with_one_line(tmp_path: Path) -> None:
    pipe = tmp_path / "x.csv"
    os.mkfifo(pipe)
    command = [sys.executable, "-m", "engine", "probe", "--data", str(pipe), "--out", str(tmp_path / "r")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=100, cwd=REPO)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"error: x.csv: not a regular file (a named pipe); {_HINT}"


_HINT = "give a CSV/TSV/JSONL/TXT/NPZ file"


def _fifty_mb(path: Path, shape: str) -> None:
    """A file of about 50 MB in one of the shapes that once cost gigabytes."""
    size = 50 * 2**20
    if shape == "one-cell.csv":
        path.write_text("text,label\n" + "w" * 1000 + ",a\n" + "word " * (size // 5) + ",b\nshort,a\n")
    elif shape == "one-line.txt":
        path.write_text("x" * size)
    elif shape == "tiny-rows.csv":
        path.write_text("text,label\n" + "a,b\n" * (size // 4))
    elif shape == "records.json":
        path.write_text("[" + ",".join(['{"t":"a","l":"b"}'] * (size // 18)) + "]")
    elif shape == "one-line.jsonl":
        path.write_text('{"text": "' + "y" * size + '", "label": "a"}\n{"text": "z", "label": "b"}\n')
    elif shape == "zeros.npz":
        np.savez_compressed(
            path, embeddings=np.zeros((40_000, 4096), np.float64), labels=np.arange(40_000) % 2
        )
    elif shape == "vectors.txt":
        path.write_text("the " + " ".join(["0.5"] * (size // 4)) + "\n")


_READ = textwrap.dedent(
    """
    import resource, sys
    sys.path.insert(0, sys.argv[3])
    from engine.data import load_dataset, read_word_vectors
    from engine.core.errors import DataError
    import engine.data.files  # the modules a reading loads, before the baseline
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        if sys.argv[2] == "vectors":
            read_word_vectors(sys.argv[1], ["the"])
        else:
            load_dataset(sys.argv[1])
        outcome = "read"
    except DataError as err:
        outcome = "refused: " + str(err)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(outcome)
    print((after - before) // 1024)
    """
)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "shape",
    [
        "one-cell.csv",
        "one-line.txt",
        "tiny-rows.csv",
        "records.json",
        "one-line.jsonl",
        "zeros.npz",
        "vectors.txt",
    ],
)
def test_reading_a_50_mb_file_of_any_shape_takes_bounded_memory(tmp_path: Path, shape: str) -> None:
    """Peak memory added by reading the file (the interpreter and libraries excluded): under 1 GB, so the
    whole process (about 0.3 GB with torch) stays under the 1.5 GB the issue sets."""
    path = tmp_path / shape
    _fifty_mb(path, shape)
    how = "vectors" if shape == "vectors.txt" else "data"
    done = subprocess.run(
        [sys.executable, "-c", _READ, str(path), how, str(REPO)], capture_output=True, text=True, timeout=280
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, added_mb = done.stdout.strip().splitlines()[-2:]
    assert "Traceback" not in done.stderr
    assert int(added_mb) < 1024, f"{shape}: {outcome}; {added_mb} MB more at the peak"
