import json
from collections import Counter
from pathlib import Path

import pytest

from engine.core.errors import ConfigError, DataError
from engine.data import builtin
from engine.data.builtin import (
    load_demo,
    load_demo_nli,
    load_demo_pairs,
    load_rt_polarity,
    load_snli,
    load_stsb,
    load_wiki1m,
)
from engine.data.types import LabelledTexts, NliPairs, NliTriples, ScoredPairs, Sentences


# ----------------------------------------------------------------------------- real data (../shared)
def test_rt_polarity_real(shared_data):
    ds = load_rt_polarity(shared_data)
    assert isinstance(ds, LabelledTexts) and len(ds) == 10_662
    assert Counter(ds.labels) == {"positive": 5_331, "negative": 5_331}
    assert ds.texts[0].startswith("the rock is destined to be the 21st century's new")
    assert not any("\x85" in t for t in ds.texts)  # cp1252: 0x85 is an ellipsis, not a NEL line break
    assert any("\u2026" in t for t in ds.texts) and any("\u00e9" in t for t in ds.texts)


def test_snli_real_splits(shared_data):
    val = load_snli(shared_data)
    assert isinstance(val, NliPairs) and len(val) == 9_842 and val.name == "snli-validation"
    assert Counter(val.labels) == {"entailment": 3_329, "neutral": 3_235, "contradiction": 3_278}
    assert (
        val.premises[0] == "Two women are embracing while holding to go packages."
        and val.labels[0] == "neutral"
    )
    test = load_snli(shared_data, split="test")
    assert len(test) == 9_824
    assert Counter(test.labels) == {"entailment": 3_368, "neutral": 3_219, "contradiction": 3_237}
    assert len(load_snli(shared_data, split="dev")) == 9_842


def test_snli_jsonl_copy_agrees_with_quoted_tsv(shared_data, tmp_path):
    (tmp_path / "snli").mkdir()
    (tmp_path / "snli" / "dev.jsonl").symlink_to(shared_data / "snli" / "dev.jsonl")
    from_jsonl, from_tsv = load_snli(tmp_path), load_snli(shared_data)
    assert Path(from_jsonl.source).suffix == ".jsonl" and Path(from_tsv.source).suffix == ".tsv"
    assert from_jsonl.premises == from_tsv.premises and from_jsonl.hypotheses == from_tsv.hypotheses
    assert from_jsonl.labels == from_tsv.labels
    assert sum('"' in h for h in from_tsv.hypotheses + from_tsv.premises) > 0


def test_stsb_real(shared_data):
    dev = load_stsb(shared_data)
    assert isinstance(dev, ScoredPairs) and len(dev) == 1_500 and dev.name == "stsb-dev"
    assert dev.scores.min() == 0.0 and dev.scores.max() == 5.0
    assert (dev.left[0], dev.right[0], dev.scores[0]) == (
        "A man with a hard hat is dancing.",
        "A man wearing a hard hat is dancing.",
        5.0,
    )
    assert (
        sum('"' in a or '"' in b for a, b in zip(dev.left, dev.right, strict=True)) == 110
    )  # no quoting applied
    train = load_stsb(shared_data, split="train")
    assert len(train) == 5_749
    assert sum('"' in a or '"' in b for a, b in zip(train.left, train.right, strict=True)) == 252
    assert len(load_stsb(shared_data, split="validation")) == 1_500


def test_wiki1m_real(shared_data):
    ds = load_wiki1m(shared_data)
    assert isinstance(ds, Sentences) and len(ds) == 11_914 and ds.texts[0] == "YMCA in South Australia"


def test_snli_triples_real(shared_data):
    from engine.data import to_triples

    tri = to_triples(load_snli(shared_data))
    assert len(tri) == 3_172 and set(tri.anchors) <= set(load_snli(shared_data).premises)


# ---------------------------------------------------------------------------------- format traps
def test_rt_polarity_bytes_and_layouts(tmp_path):
    (tmp_path / "rt-polarity.pos").write_bytes(b"good \x85 fun \n caf\xe9 \n\n")
    (tmp_path / "rt-polarity.neg").write_bytes(b"bad \x97 dull\n")
    ds = load_rt_polarity(tmp_path)
    assert ds.texts == ["good \u2026 fun", "caf\u00e9", "bad \u2014 dull"]
    assert ds.labels == ["positive", "positive", "negative"]
    (tmp_path / "rt-polarity.neg").unlink()
    with pytest.raises(DataError, match="rt-polarity: .*rt-polarity.neg is missing"):
        load_rt_polarity(tmp_path)


def test_stsb_extra_fields_and_bad_lines(tmp_path):
    (tmp_path / "stsb").mkdir()
    path = tmp_path / "stsb" / "sts-dev.csv"
    path.write_text('g\tf\ty\t1\t3.5\tHe said "hi\tShe said "bye"\textra\tfields\n', encoding="utf-8")
    ds = load_stsb(tmp_path)
    assert ds.left == ['He said "hi'] and ds.right == ['She said "bye"'] and ds.scores.tolist() == [3.5]
    path.write_text("g\tf\ty\t1\t3.5\tonly six\n", encoding="utf-8")
    with pytest.raises(DataError, match="sts-dev.csv: line 1 has 6 tab-separated fields"):
        load_stsb(tmp_path)
    path.write_text("g\tf\ty\t1\thigh\ta\tb\n", encoding="utf-8")
    with pytest.raises(DataError, match="sts-dev.csv: line 1: score 'high' is not a number"):
        load_stsb(tmp_path)


def test_wiki_reads_every_txt(tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "b.txt").write_text("third\n", encoding="utf-8")
    (tmp_path / "wiki" / "a.txt").write_text("first\n\nsecond\u0085still second\n", encoding="utf-8")
    assert load_wiki1m(tmp_path).texts == ["first", "second\u0085still second", "third"]


def test_bad_split_and_label_col(shared_data):
    with pytest.raises(ConfigError, match="snli: unknown split 'nope'"):
        load_snli(shared_data, split="nope")
    with pytest.raises(ConfigError, match="stsb: label_col is only for the demo"):
        load_stsb(shared_data, label_col="x")


# ------------------------------------------------------------------------------------------- demo
@pytest.fixture
def demo_dir(tmp_path, monkeypatch):
    rows = [
        {"text": f"{t} sentence {i}", "topic": t, "sentiment": "positive" if i % 2 else "negative"}
        for t in ("food", "sport")
        for i in range(4)
    ]
    (tmp_path / "topics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pairs = [{"sentence1": f"a{i}", "sentence2": f"b{i}", "score": i / 2} for i in range(5)]
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pairs), encoding="utf-8")
    nli = [{"premise": f"p{i}", "entailment": f"e{i}", "contradiction": f"c{i}"} for i in range(3)]
    (tmp_path / "nli.jsonl").write_text("".join(json.dumps(r) + "\n" for r in nli), encoding="utf-8")
    monkeypatch.setattr(builtin, "DEMO_DIR", tmp_path)
    return tmp_path


def test_demo_loaders_on_small_files(demo_dir):
    topics = load_demo()
    assert topics.name == "demo" and len(topics) == 8 and topics.classes == ["food", "sport"]
    senti = load_demo(label_col="sentiment")
    assert senti.classes == ["negative", "positive"] and senti.texts == topics.texts
    pairs = load_demo_pairs()
    assert isinstance(pairs, ScoredPairs) and pairs.scores.tolist() == [0, 0.5, 1, 1.5, 2]
    nli = load_demo_nli()
    assert isinstance(nli, NliTriples) and nli.positives == ["e0", "e1", "e2"]
    with pytest.raises(ConfigError, match="demo: label_col must be one of topic, sentiment"):
        load_demo(label_col="colour")


def test_demo_missing_file(demo_dir):
    (demo_dir / "nli.jsonl").unlink()
    with pytest.raises(DataError, match="demo: the demo corpus file engine/data/demo/nli.jsonl is missing"):
        load_demo_nli()


@pytest.mark.parametrize(
    "name, loader, kind, minimum",
    [
        ("topics.jsonl", load_demo, "labelled", 600),
        ("pairs.jsonl", load_demo_pairs, "pairs", 200),
        ("nli.jsonl", load_demo_nli, "triples", 300),
    ],
)
def test_shipped_demo_corpus(name, loader, kind, minimum):
    ds = loader()
    assert ds.kind == kind and len(ds) >= minimum
