import csv
import io
import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.errors import DataError
from engine.data.columns import guess_columns
from engine.data.formats import read_table, sniff_delimiter


# ------------------------------------------------------------------------------------------ formats
def test_csv_tsv_jsonl_json_txt(write, write_jsonl):
    assert read_table(write("a.csv", "text,label\nhi,x\nyo,y\n")).shape == (2, 2)
    assert read_table(write("a.tsv", "text\tlabel\nhi, there\tx\n")).iloc[0, 0] == "hi, there"
    jl = read_table(write_jsonl("a.jsonl", [{"text": "a", "label": ["x", "y"]}, {"text": "b", "label": "z"}]))
    assert jl["label"].tolist() == [["x", "y"], "z"]
    assert read_table(write("a.json", json.dumps([{"text": "a"}, {"text": "b"}]))).shape == (2, 1)
    assert read_table(write("b.json", json.dumps({"data": [{"text": "a"}]}))).shape == (1, 1)
    txt = read_table(write("a.txt", "one\n\ntwo\r\nthree"))
    assert txt["text"].tolist() == ["one", "two", "three"]


def test_txt_splits_on_newline_only(write):
    frame = read_table(write("a.txt", "a\u0085b\nc\u2028d\n"))  # NEL / LINE SEPARATOR are not line breaks
    assert frame["text"].tolist() == ["a\u0085b", "c\u2028d"]


def test_parquet(tmp_path):
    path = tmp_path / "a.parquet"
    pd.DataFrame({"text": ["a", "b"], "label": [0, 1]}).to_parquet(path)
    assert read_table(path).shape == (2, 2)
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataError, match="bad.parquet"):
        read_table(tmp_path / "bad.parquet")


def test_na_strings_stay_text(write):
    frame = read_table(write("a.csv", "text,label\nNA,null\nNone,n/a\n"))
    assert frame["text"].tolist() == ["NA", "None"] and frame["label"].tolist() == ["null", "n/a"]


def test_quoted_fields_and_bom(write):
    frame = read_table(write("q.csv", '\ufefftext,label\n"say ""hi"", now",x\n"two\nlines",y\n'))
    assert list(frame.columns) == ["text", "label"]
    assert frame["text"].tolist() == ['say "hi", now', "two\nlines"]


@pytest.mark.parametrize("sep", [";", "|", "\t"])
def test_other_delimiter_in_a_csv_is_found(write, sep):
    frame = read_table(write("semi.csv", f"text{sep}label\nhello, world{sep}x\nbye{sep}y\n"))
    assert list(frame.columns) == ["text", "label"] and frame["text"][0] == "hello, world"


def test_unknown_extension_is_sniffed(write):
    assert read_table(write("a.dat", "text;label\na;x\nb;y\n")).shape == (2, 2)
    assert read_table(write("b.dat", '{"text": "a"}\n{"text": "b"}\n')).shape == (2, 1)
    assert read_table(write("c.dat", "just a line\nanother\n"))["text"].tolist() == ["just a line", "another"]
    assert sniff_delimiter("a|b\n1|2\n") == "|"


# -------------------------------------------------------------------------------------- bad files
@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.csv", b"", "empty"),
        ("blank.csv", b"  \n\n ", "empty"),
        ("header.csv", b"text,label\n", "no data rows"),
        ("junk.csv", bytes(range(256)) * 40, "binary"),
        ("utf16.csv", "text,label\nhé,x\n".encode("utf-16"), "binary"),
        ("latin.csv", "text,label\ncaf\u00e9,x\n".encode("latin-1"), "not UTF-8.*0xe9"),
        ("broken.jsonl", b'{"text": "a"}\n{"text": \n', "line 2 is not valid JSON"),
        ("list.jsonl", b'["a", "b"]\n', "line 1 is not a JSON object"),
        ("ragged.csv", b"text,label\na,b\nc,d,e,f\n", "not a valid comma-separated table"),
        ("scalar.json", b'"just a string"', "JSON list of objects"),
    ],
)
def test_bad_files_name_the_file(write, name, content, message):
    with pytest.raises(DataError, match=message) as err:
        read_table(write(name, content))
    assert str(err.value).startswith(name) and "\n" not in str(err.value)


def test_missing_and_folder(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_table(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="not a file"):
        read_table(tmp_path)


def test_row_and_byte_caps(write, monkeypatch):
    path = write("big.csv", "text\n" + "".join(f"s{i}\n" for i in range(50)))
    assert len(read_table(path, max_rows=50)) == 50
    with pytest.raises(DataError, match="big.csv: more than 49 rows"):
        read_table(path, max_rows=49)
    monkeypatch.setenv("EMBEDLAB_MAX_ROWS", "10")
    with pytest.raises(DataError, match="more than 10 rows"):
        read_table(path)
    with pytest.raises(DataError, match="upload cap"):
        read_table(path, max_bytes=100)
    jl = write("big.jsonl", "".join('{"text": "x"}\n' for _ in range(20)))
    with pytest.raises(DataError, match="more than 10 rows"):
        read_table(jl)


# ------------------------------------------------------------------------------------------ guesses
@pytest.mark.parametrize(
    "columns, kind, roles",
    [
        (["text", "label"], "labelled", {"text": "text", "label": "label"}),
        (["Sentence", "Category"], "labelled", {"text": "Sentence", "label": "Category"}),
        (["review"], "sentences", {"text": "review"}),
        (
            ["sentence1", "sentence2", "score"],
            "pairs",
            {"left": "sentence1", "right": "sentence2", "score": "score"},
        ),
        (["premise", "hypothesis", "label"], "nli-pairs", {"premise": "premise", "label": "label"}),
        (
            ["sent0", "sent1", "hard_neg"],
            "triples",
            {"anchor": "sent0", "positive": "sent1", "negative": "hard_neg"},
        ),
        (["premise", "entailment", "contradiction"], "triples", {"anchor": "premise"}),
        (["anchor", "positive", "negative"], "triples", {"negative": "negative"}),
    ],
)
def test_guess_columns(columns, kind, roles):
    values = {"score": "3.5", "label": "entailment", "Category": "x"}
    frame = pd.DataFrame([{c: values.get(c, f"words of {c}") for c in columns}] * 3)
    guess = guess_columns(frame)
    assert guess.kind == kind
    for role, col in roles.items():
        assert getattr(guess, role) == col
    assert guess.as_dict()["columns"] == columns


def test_guess_nli_with_codes_and_original_snli_names():
    frame = pd.DataFrame(
        {"premise": ["a", "b", "c"], "hypothesis": ["d", "e", "f"], "label": ["0", "1", "2"]}
    )
    assert guess_columns(frame).kind == "nli-pairs"
    snli = pd.DataFrame({"gold_label": ["neutral", "-"], "sentence1": ["a", "b"], "sentence2": ["c", "d"]})
    g = guess_columns(snli)
    assert (g.kind, g.premise, g.hypothesis, g.label) == ("nli-pairs", "sentence1", "sentence2", "gold_label")
    sts = pd.DataFrame({"sentence1": ["a", "b"], "sentence2": ["c", "d"], "label": ["0", "2"]})
    assert guess_columns(sts).kind == "pairs"  # GLUE STS-B names its score "label"


def test_guess_single_string_column():
    frame = pd.DataFrame({"id": ["1", "2"], "body_text": ["hello there", "good bye"], "y2": ["3", "4"]})
    g = guess_columns(frame)
    assert g.text == "body_text" and g.kind == "sentences"
    two = pd.DataFrame({"a": ["short", "tiny"], "b": ["a much longer sentence here", "and another long one"]})
    assert guess_columns(two).text == "b"


# --------------------------------------------------------------------------- property round trips
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(list(",;|\"\t\n'")),
    min_size=1,
    max_size=40,
)
ROWS = st.lists(st.tuples(TEXT, st.sampled_from(["pos", "neg", "a|b"])), min_size=1, max_size=15)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def rows_read(path) -> list[tuple]:
    """The (text, label) rows :func:`read_table` reads from ``path``."""
    frame = read_table(path)
    return list(zip(frame["text"], frame["label"], strict=True))


@SETTINGS
@given(rows=ROWS)
def test_csv_round_trip(tmp_path, rows):
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["text", "label"])
    writer.writerows(rows)
    path = tmp_path / "prop.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    assert rows_read(path) == rows


@SETTINGS
@given(rows=ROWS)
def test_tsv_round_trip_with_pandas_quoting(tmp_path, rows):
    path = tmp_path / "prop.tsv"
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(path, sep="\t", index=False)
    assert rows_read(path) == rows


@pytest.mark.parametrize("cell", ["\t\n", "\n", "x\ty", '""\t', '"'])
def test_tsv_quoted_cell_holding_tabs_and_newlines(tmp_path, cell):
    """A cell a CSV writer had to quote because it holds a tab or a newline is one cell, even when the
    lines it spans each look like a table of consistent width (a case hypothesis found)."""
    rows = [(cell, "pos"), ("plain", "neg")]
    path = tmp_path / "quoted.tsv"
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(path, sep="\t", index=False)
    assert rows_read(path) == rows


@SETTINGS
@given(rows=ROWS)
def test_jsonl_round_trip(tmp_path, rows):
    path = tmp_path / "prop.jsonl"
    path.write_text(
        "".join(json.dumps({"text": t, "label": lab}, ensure_ascii=False) + "\n" for t, lab in rows),
        encoding="utf-8",
    )
    assert rows_read(path) == rows
