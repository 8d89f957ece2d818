import pytest

from engine.core.errors import ConfigError, DataError
from engine.data import DATASETS, describe, load_dataset
from engine.data.types import LabelledTexts, NliPairs, NliTriples, Sentences


def test_registry_lists_the_built_ins():
    assert list(DATASETS) == [
        "demo",
        "demo-pairs",
        "demo-nli",
        "rt-polarity",
        "snli",
        "stsb",
        "wiki1m",
        "wordnet-pos",
        "wordnet-supersenses",
        "wordnet-noun-supersenses",
    ]
    kinds = {name: spec.kind for name, spec in DATASETS.items()}
    assert kinds == {
        "demo": "labelled",
        "demo-pairs": "pairs",
        "demo-nli": "triples",
        "rt-polarity": "labelled",
        "snli": "nli-pairs",
        "stsb": "pairs",
        "wiki1m": "sentences",
        "wordnet-pos": "labelled",
        "wordnet-supersenses": "labelled",
        "wordnet-noun-supersenses": "labelled",
    }
    assert all(spec.description and callable(spec.loader) for spec in DATASETS.values())
    assert describe()[4]["splits"] == ["validation", "test", "train"]


def test_load_user_file_with_kind_and_limit(write):
    rows = "".join(f"t{i},{'ab'[i % 2]}\n" for i in range(40))
    path = write("u.csv", "text,label\n" + rows)
    ds = load_dataset(str(path), limit=10, seed=1)
    assert isinstance(ds, LabelledTexts) and len(ds) == 10 and sorted(set(ds.labels)) == ["a", "b"]
    assert load_dataset(path, limit=10, seed=1).texts == ds.texts  # Path objects too, deterministic
    sents = load_dataset(path, kind="sentences")
    assert isinstance(sents, Sentences) and len(sents) == 40


def test_nli_conversions_via_kind(write):
    path = write("n.csv", "premise,hypothesis,label\np,e,entailment\np,c,contradiction\np,n,neutral\n")
    assert isinstance(load_dataset(path), NliPairs)
    tri = load_dataset(path, kind="triples")
    assert isinstance(tri, NliTriples) and (tri.anchors, tri.positives, tri.negatives) == (
        ["p"],
        ["e"],
        ["c"],
    )


def test_real_sets_through_the_registry(shared_data, monkeypatch):
    assert len(load_dataset("rt-polarity", data_dir=shared_data, limit=100)) == 100
    assert len(load_dataset("SNLI", data_dir=str(shared_data), split="test")) == 9_824
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(shared_data))
    assert len(load_dataset("stsb")) == 1_500
    assert load_dataset("snli", kind="triples").kind == "triples"


def test_registry_errors(tmp_path, write):
    with pytest.raises(
        DataError, match="'nope.csv' is neither a built-in data set .*demo, .* nor an existing file"
    ):
        load_dataset("nope.csv")
    with pytest.raises(DataError, match="is a folder"):
        load_dataset(str(tmp_path))
    with pytest.raises(DataError, match="no data set given"):
        load_dataset("  ")
    path = write("f.csv", "text,label\na,x\nb,y\n")
    with pytest.raises(ConfigError, match="f.csv: split applies to built-in data sets only"):
        load_dataset(path, split="test")
    with pytest.raises(ConfigError, match="rt-polarity: text_col is only for user files"):
        load_dataset("rt-polarity", text_col="text")
    with pytest.raises(ConfigError, match="limit must be a positive whole number"):
        load_dataset(path, limit=0)
    with pytest.raises(ConfigError, match="unknown data kind 'tree'"):
        load_dataset(path, kind="tree")
    with pytest.raises(DataError, match=r"f.csv: no positive column found \(columns: 'text', 'label'\)"):
        load_dataset(path, kind="triples")


def test_built_in_of_the_wrong_kind(shared_data):
    with pytest.raises(
        DataError, match=r"rt-polarity: cannot make NLI triples from a labelled data set \(need NLI pairs\)"
    ):
        load_dataset("rt-polarity", data_dir=shared_data, kind="triples")
    with pytest.raises(DataError, match="stsb-dev: a pairs data set cannot be used as labelled"):
        load_dataset("stsb", data_dir=shared_data, kind="labelled")
