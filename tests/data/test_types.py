import numpy as np
import pytest

from engine.core.errors import DataError
from engine.data.types import KINDS, LabelledTexts, NliPairs, NliTriples, ScoredPairs, Sentences, label_text


def test_kinds_len_and_frames():
    lab = LabelledTexts("x", ["a", "b", "c"], ["p", "n", "p"])
    pairs = ScoredPairs("x", ["a", "b"], ["c", "d"], [1, 4.5])
    nli = NliPairs("x", ["p"], ["h"], ["neutral"])
    tri = NliTriples("x", ["a"], ["p"], ["n"])
    sen = Sentences("x", ["a", "b"])
    assert [d.kind for d in (lab, pairs, nli, tri, sen)] == [
        "labelled",
        "pairs",
        "nli-pairs",
        "triples",
        "sentences",
    ]
    assert set(KINDS) == {"labelled", "pairs", "nli-pairs", "triples", "sentences"}
    assert [len(d) for d in (lab, pairs, nli, tri, sen)] == [3, 2, 1, 1, 2]
    assert list(lab.to_frame().columns) == ["text", "label"]
    assert list(pairs.to_frame().columns) == ["sentence1", "sentence2", "score"]
    assert list(nli.to_frame().columns) == ["premise", "hypothesis", "label"]
    assert list(tri.to_frame().columns) == ["anchor", "positive", "negative"]
    assert list(sen.to_frame().columns) == ["text"]
    assert pairs.scores.dtype == np.float64 and lab.warnings == [] and lab.classes == ["n", "p"]


def test_multilabel_helpers():
    lab = LabelledTexts("x", ["a", "b"], [("x", "y"), ("y",)])
    assert lab.is_multilabel and lab.classes == ["x", "y"]
    assert lab.to_frame()["label"].tolist() == ["x|y", "y"]
    assert label_text("z") == "z"


@pytest.mark.parametrize(
    "make",
    [
        lambda: LabelledTexts("bad", ["a"], ["x", "y"]),
        lambda: ScoredPairs("bad", ["a"], ["b", "c"], [1.0]),
        lambda: ScoredPairs("bad", ["a"], ["b"], [float("nan")]),
        lambda: NliPairs("bad", ["a"], ["b"], ["maybe"]),
        lambda: NliTriples("bad", ["a"], [], ["c"]),
    ],
)
def test_inconsistent_columns_raise(make):
    with pytest.raises(DataError, match="bad"):
        make()
