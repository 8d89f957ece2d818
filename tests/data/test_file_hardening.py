"""User files are judged cheaply first, and original published layouts are read by content, not extension."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.core.errors import DataError
from engine.data.formats import read_table
from engine.data.registry import load_dataset
from engine.data.types import ScoredPairs

STS_LINES = [
    'main-captions\tMSRvid\t2012test\t0001\t5.000\tA man said "hi.\tA man greets someone.',
    'main-news\theadlines\t2013\t0002\t1.250\t"Quoted" start of a sentence.\tAnother one " here.',
    "main-forums\tdeft-forum\t2014\t0003\t0.000\tNo quotes here.\tNone here either.\textra\tfields",
]


def test_a_file_with_too_many_columns_is_refused_from_its_header(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text(",".join(f"c{i}" for i in range(100_000)) + "\n" + ",".join("x" * 100_000) + "\n")
    with pytest.raises(
        DataError, match=r"wide\.csv: 100,000 columns in the header; a data file has at most 1,000"
    ):
        read_table(path)


def test_rows_past_the_cap_are_never_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDLAB_MAX_ROWS", "100")
    path = tmp_path / "big.csv"
    good = "".join(f"sentence {i},pos\n" for i in range(500))
    path.write_bytes(b"text,label\n" + good.encode() + b"bad \xff byte,neg\n" * 500)
    with pytest.raises(
        DataError, match=r"more than 100 rows \(the row cap\)"
    ):  # not a UTF-8 error: never read
        read_table(path)


def test_cells_spanning_lines_past_the_head_are_still_read_whole(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EMBEDLAB_MAX_ROWS", "5")
    path = tmp_path / "multiline.csv"
    path.write_text("text,label\n" + "".join(f'"line one {i}\nline two\nline three",pos\n' for i in range(4)))
    frame = read_table(path)
    assert len(frame) == 4
    assert frame["text"].iloc[3] == "line one 3\nline two\nline three"


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".txt"])
def test_the_original_sts_layout_is_recognised_whatever_the_extension(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"sts-test{suffix}"
    path.write_text("\n".join(STS_LINES) + "\n", encoding="utf-8")
    data = load_dataset(str(path), kind="pairs")
    assert isinstance(data, ScoredPairs)
    assert data.left == ['A man said "hi.', '"Quoted" start of a sentence.', "No quotes here."]
    assert data.right[1] == 'Another one " here.'
    np.testing.assert_allclose(data.scores, [5.0, 1.25, 0.0])


def test_a_tab_separated_file_with_stray_quotes_is_read_without_quoting(tmp_path: Path) -> None:
    path = tmp_path / "nli.csv"  # the extension says comma; the content says tab
    path.write_text('premise\thypothesis\tlabel\n"A man" waves.\tSomeone " waves.\t0\nA dog.\tA cat.\t2\n')
    frame = read_table(path)
    assert frame.to_dict("records") == [
        {"premise": '"A man" waves.', "hypothesis": 'Someone " waves.', "label": "0"},
        {"premise": "A dog.", "hypothesis": "A cat.", "label": "2"},
    ]


def test_the_real_sts_and_snli_files_load_by_path(shared_data: Path) -> None:
    by_path = load_dataset(str(shared_data / "stsb" / "sts-dev.csv"), kind="pairs")
    built_in = load_dataset("stsb", data_dir=str(shared_data), split="dev")
    assert by_path.left == built_in.left and by_path.right == built_in.right
    np.testing.assert_array_equal(by_path.scores, built_in.scores)
    snli = load_dataset(str(shared_data / "snli" / "test.tsv"))
    assert len(snli) == len(load_dataset("snli", data_dir=str(shared_data), split="test"))


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_deeply_nested_json_is_one_line_not_a_recursion_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"deep{suffix}"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(DataError, match="nested too deeply"):
        read_table(path)


def test_an_sts_file_with_a_bad_byte_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sts-dev.csv"
    path.write_bytes(STS_LINES[0].encode() + b"\n" + STS_LINES[2].encode().replace(b"No", b"N\xff") + b"\n")
    with pytest.raises(DataError, match=r"sts-dev\.csv: not UTF-8 text \(byte 0xff"):
        load_dataset(str(path), kind="pairs")
