import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.errors import ConfigError, DataError
from engine.data.files import load_file, normalise_kind, parse_labels
from engine.data.types import LabelledTexts, NliPairs, NliTriples, ScoredPairs, Sentences


# --------------------------------------------------------------------------------------- every kind
def test_labelled_csv(write):
    ds = load_file(write("reviews.csv", "text,label\n good ,pos\nbad,neg\nok,pos\n"))
    assert isinstance(ds, LabelledTexts) and ds.name == "reviews"
    assert ds.texts == ["good", "bad", "ok"] and ds.labels == ["pos", "neg", "pos"]
    assert ds.warnings == ["1 classes have a single example (neg)"]


def test_text_and_label_columns_by_name(write):
    path = write("multi.tsv", "id\tbody\ttopic\tmood\n1\ta\tx\tp\n2\tb\ty\tq\n")
    ds = load_file(path, text_col="body", label_col="MOOD")  # case-insensitive match
    assert ds.texts == ["a", "b"] and ds.labels == ["p", "q"]
    assert load_file(path, text_col="body").labels == ["x", "y"]  # 'topic' is a label name


def test_text_col_picks_single_texts(write):
    path = write("nli.csv", "premise,hypothesis,label\np,h,entailment\nq,g,neutral\n")
    ds = load_file(path, text_col="hypothesis")
    assert isinstance(ds, LabelledTexts) and ds.texts == ["h", "g"] and ds.labels == ["entailment", "neutral"]
    pairs = write("pairs.csv", "sentence1,sentence2,score\na,b,1\nc,d,2\n")
    assert load_file(pairs, text_col="sentence2").texts == ["b", "d"]


def test_txt_and_single_column_are_sentences(write):
    assert isinstance(load_file(write("s.txt", "one\ntwo\n")), Sentences)
    ds = load_file(write("s.csv", "sentence\nfirst\nsecond\n"))
    assert isinstance(ds, Sentences) and ds.texts == ["first", "second"]


def test_pairs(write):
    ds = load_file(write("p.csv", "sentence1,sentence2,score\na,b,4.5\nc,d,0\ne,f,\n"))
    assert isinstance(ds, ScoredPairs) and ds.left == ["a", "c"] and np.allclose(ds.scores, [4.5, 0])
    assert "dropped 1 of 3 rows with an empty sentence or score" in ds.warnings
    wide = load_file(write("w.csv", "sentence1,sentence2,score\na,b,1\nc,d,10\n"))
    assert any("outside the STS 0-5 scale" in w for w in wide.warnings)


def test_nli_pairs_codes_and_dash(write_jsonl, write):
    rows = [
        {"premise": "p", "hypothesis": "h1", "label": 0},
        {"premise": "p", "hypothesis": "h2", "label": 2},
        {"premise": "p", "hypothesis": "h3", "label": "-"},
        {"premise": "q", "hypothesis": "h4", "label": "neutral"},
    ]
    ds = load_file(write_jsonl("nli.jsonl", rows))
    assert isinstance(ds, NliPairs) and ds.labels == ["entailment", "contradiction", "neutral"]
    assert "dropped 1 pairs without a gold label ('-')" in ds.warnings
    with pytest.raises(
        DataError, match=r"bad.csv: column 'label' has labels that are not NLI labels \('maybe'\)"
    ):
        load_file(write("bad.csv", "premise,hypothesis,label\na,b,entailment\nc,d,maybe\n"), kind="nli")
    with pytest.raises(DataError, match="dash.csv: no usable rows: all 2 rows have an empty label"):
        load_file(write("dash.csv", "premise,hypothesis,label\na,b,-\nc,d,-\n"), kind="nli-pairs")


@pytest.mark.parametrize(
    "header", ["sent0,sent1,hard_neg", "anchor,positive,negative", "premise,entailment,contradiction"]
)
def test_triples(write, header):
    ds = load_file(write("t.csv", f"{header}\na,b,c\nd,e,f\n"))
    assert isinstance(ds, NliTriples) and ds.anchors == ["a", "d"] and ds.negatives == ["c", "f"]


def test_multilabel_cells(write_jsonl, write):
    ds = load_file(write("m.csv", 'text,labels\na,x|y\nb,"[""y"", ""z""]"\nc,x\n'))
    assert ds.labels == [("x", "y"), ("y", "z"), ("x",)] and ds.is_multilabel
    jl = load_file(
        write_jsonl("m.jsonl", [{"text": "a", "label": ["b", "a", "a"]}, {"text": "b", "label": "c"}])
    )
    assert jl.labels == [("a", "b"), ("c",)]
    assert parse_labels(["a", 1, None]) == ["a", "1", ""]


def test_kind_aliases():
    assert normalise_kind("Labeled") == "labelled" and normalise_kind("nli") == "nli-pairs"
    assert normalise_kind(None) is None
    with pytest.raises(ConfigError, match="unknown data kind 'graph'"):
        normalise_kind("graph")


# -------------------------------------------------------------------------------------- bad input
def test_missing_or_misnamed_column_lists_columns(write):
    path = write("cols.csv", "sentence,klass\na,x\nb,y\n")
    with pytest.raises(
        DataError,
        match=r"cols.csv: no label column found \(columns: 'sentence', 'klass'\); "
        "choose one with label_col",
    ):
        load_file(path, kind="labelled")
    with pytest.raises(
        DataError, match=r"cols.csv: no column 'lable' for the label \(columns: 'sentence', 'klass'\)"
    ):
        load_file(path, label_col="lable")
    with pytest.raises(DataError, match="cols.csv: no column 'txt' for the text"):
        load_file(path, text_col="txt", label_col="klass")
    with pytest.raises(DataError, match="cols.csv: no first sentence"):
        load_file(path, kind="pairs")


def test_wrong_delimiter_single_column(write):
    path = write("wrong.tsv", "text:label\nhello:x\nbye:y\n")
    with pytest.raises(
        DataError,
        match="wrong.tsv: no label column found .*only one column was found when "
        "splitting on tab: is the delimiter right",
    ):
        load_file(path, kind="labelled")


def test_empty_texts_dropped_or_error(write):
    ds = load_file(write("gaps.csv", "text,label\na,x\n,y\n   ,x\nb,y\nc,\n"))
    assert ds.texts == ["a", "b"]
    assert "dropped 3 of 5 rows with an empty text ('text') or label ('label')" in ds.warnings
    with pytest.raises(DataError, match=r"blank.csv: no usable rows: all 2 rows have an empty text"):
        load_file(write("blank.csv", "text,label\n,x\n  ,y\n"))
    jl = load_file(
        write(
            "nan.jsonl",
            '{"text": null, "label": "a"}\n{"text": NaN, "label": "b"}\n'
            '{"text": "ok", "label": "a"}\n{"text": "fine", "label": "b"}\n',
        )
    )
    assert jl.texts == ["ok", "fine"]


def test_single_class_is_an_error(write):
    with pytest.raises(
        DataError,
        match=r"one.csv: column 'label' has a single class \('pos'\); a classifier "
        "needs at least 2",
    ):
        load_file(write("one.csv", "text,label\na,pos\nb,pos\n"))


def test_singletons_duplicates_and_long_texts_are_warnings(write):
    long = "word " * 600
    ds = load_file(write("w.csv", f"text,label\na,x\na,x\nb,x\nc,y\n{long},x\na,z\n"))
    assert len(ds) == 6
    joined = " / ".join(ds.warnings)
    assert "2 classes have a single example (y, z)" in joined
    assert "1 duplicate rows (kept)" in joined
    assert "1 texts longer than 2,000 characters (kept; encoders truncate them)" in joined
    assert "1 texts appear with different labels" in joined


def test_non_numeric_scores(write):
    with pytest.raises(
        DataError, match=r"s.csv: column 'score' has non-numeric scores \(e.g. 'high' in row 2\)"
    ):
        load_file(write("s.csv", "sentence1,sentence2,score\na,b,1\nc,d,high\n"), kind="pairs")


def test_100k_rows_load_whole(tmp_path):
    path = tmp_path / "big.csv"
    rng = np.random.default_rng(0)
    lines = [
        f"sentence number {i} about {w},{'abc'[i % 3]}" for i, w in enumerate(rng.integers(0, 1000, 100_000))
    ]
    path.write_text("text,label\n" + "\n".join(lines) + "\n", encoding="utf-8")
    ds = load_file(path)
    assert len(ds) == 100_000 and ds.classes == ["a", "b", "c"]
    assert ds.texts[-1] == lines[-1].rsplit(",", 1)[0] and ds.labels[-1] == "abc"[99_999 % 3]
    with pytest.raises(DataError, match="big.csv: more than 50,000 rows"):
        load_file(path, max_rows=50_000)


# -------------------------------------------------------------------------- property: full loader
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(list(',;|"\t\n')),
    min_size=1,
    max_size=30,
).filter(lambda t: t.strip() != "")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(TEXT, min_size=2, max_size=12), fmt=st.sampled_from(["csv", "jsonl"]))
def test_loader_round_trips_texts(tmp_path, texts, fmt):
    labels = ["a" if i % 2 else "b" for i in range(len(texts))]
    path = tmp_path / f"p.{fmt}"
    if fmt == "csv":
        import pandas as pd

        pd.DataFrame({"text": texts, "label": labels}).to_csv(path, index=False)
    else:
        path.write_text(
            "".join(
                json.dumps({"text": t, "label": lab}) + "\n" for t, lab in zip(texts, labels, strict=True)
            ),
            encoding="utf-8",
        )
    ds = load_file(path)
    assert ds.texts == [t.strip() for t in texts] and ds.labels == labels


def test_parquet_lists_and_missing_values(tmp_path):
    import pandas as pd

    path = tmp_path / "tags.parquet"
    pd.DataFrame({"text": ["a", "b", None], "label": [["x", "y"], ["y"], ["x"]]}).to_parquet(path)
    ds = load_file(path)
    assert ds.texts == ["a", "b"] and ds.labels == [("x", "y"), ("y",)]
