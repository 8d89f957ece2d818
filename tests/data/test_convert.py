from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import ConfigError, DataError
from engine.data.convert import (
    class_quotas,
    convert,
    stratified_subset,
    take,
    to_pairs,
    to_sentences,
    to_triples,
)
from engine.data.types import LabelledTexts, NliPairs, NliTriples, ScoredPairs, Sentences


def _labelled(counts: dict[str, int]) -> LabelledTexts:
    texts, labels = [], []
    for label, n in counts.items():
        texts += [f"{label}-{i}" for i in range(n)]
        labels += [label] * n
    return LabelledTexts("t", texts, labels)


def test_stratified_keeps_proportions_order_and_is_deterministic():
    ds = _labelled({"a": 600, "b": 300, "c": 100})
    sub = stratified_subset(ds, 100, seed=3)
    assert Counter(sub.labels) == {"a": 60, "b": 30, "c": 10}
    assert sub.texts == [t for t in ds.texts if t in set(sub.texts)]  # original order kept
    assert stratified_subset(ds, 100, seed=3).texts == sub.texts
    assert stratified_subset(ds, 100, seed=4).texts != sub.texts
    assert sub.name == ds.name and sub.warnings == ds.warnings == []


def test_stratified_at_least_one_per_class():
    ds = _labelled({"big": 1000, "tiny": 1, "small": 3})
    assert Counter(stratified_subset(ds, 10, seed=0).labels) == {"big": 8, "tiny": 1, "small": 1}
    assert len(stratified_subset(ds, 2, seed=0)) == 2
    assert stratified_subset(ds, 5000, seed=0) is ds


def test_subset_of_other_kinds_and_bad_limits():
    pairs = ScoredPairs("p", list("abcdef"), list("ghijkl"), [0, 1, 2, 3, 4, 5])
    sub = stratified_subset(pairs, 3, seed=1)
    assert len(sub) == 3 and sub.scores.tolist() == sorted(sub.scores.tolist())
    assert [sub.left.index(x) for x in sub.left] == [0, 1, 2]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigError, match="limit must be a positive whole number"):
            stratified_subset(pairs, bad, seed=0)


@settings(max_examples=80, deadline=None)
@given(counts=st.lists(st.integers(1, 50), min_size=1, max_size=8), limit=st.integers(1, 120))
def test_quota_properties(counts, limit):
    quota = class_quotas(counts, limit)
    assert sum(quota) == min(limit, sum(counts))
    assert all(0 <= q <= c for q, c in zip(quota, counts, strict=True))
    if limit >= len(counts):
        assert all(q >= 1 for q in quota)


@settings(max_examples=30, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["x", "y", "z"]), min_size=2, max_size=60),
    limit=st.integers(1, 60),
    seed=st.integers(0, 5),
)
def test_subset_is_a_subset(labels, limit, seed):
    ds = LabelledTexts("h", [f"t{i}" for i in range(len(labels))], labels)
    sub = stratified_subset(ds, limit, seed)
    assert len(sub) == min(limit, len(ds))
    assert set(zip(sub.texts, sub.labels, strict=True)) <= set(zip(ds.texts, ds.labels, strict=True))


def test_take_keeps_arrays():
    pairs = ScoredPairs("p", ["a", "b", "c"], ["d", "e", "f"], [1, 2, 3])
    assert take(pairs, [2, 0]).scores.tolist() == [3.0, 1.0]


def test_to_triples_groups_by_premise():
    nli = NliPairs(
        "n",
        ["p", "p", "p", "p", "q", "q", "r", "r"],
        ["e1", "c1", "e2", "n1", "e3", "n2", "c2", "c3"],
        [
            "entailment",
            "contradiction",
            "entailment",
            "neutral",
            "entailment",
            "neutral",
            "contradiction",
            "contradiction",
        ],
    )
    tri = to_triples(nli)
    assert isinstance(tri, NliTriples)
    assert list(zip(tri.anchors, tri.positives, tri.negatives, strict=True)) == [
        ("p", "e1", "c1"),
        ("p", "e2", "c1"),
    ]
    assert to_triples(tri) is tri
    with pytest.raises(DataError, match="no premise has both an entailment and a contradiction"):
        to_triples(NliPairs("n", ["p", "q"], ["a", "b"], ["entailment", "contradiction"]))
    with pytest.raises(DataError, match="cannot make NLI triples from a labelled"):
        to_triples(_labelled({"a": 1}))


def test_to_pairs_and_back():
    tri = NliTriples("t", ["a", "b"], ["a+", "b+"], ["a-", "b-"])
    pairs = to_pairs(tri)
    assert pairs.labels == ["entailment", "contradiction"] * 2 and pairs.hypotheses == [
        "a+",
        "a-",
        "b+",
        "b-",
    ]
    back = to_triples(pairs)
    assert (back.anchors, back.positives, back.negatives) == (tri.anchors, tri.positives, tri.negatives)
    with pytest.raises(DataError, match="cannot make NLI pairs"):
        to_pairs(Sentences("s", ["x"]))


def test_to_sentences_unique_in_order():
    assert to_sentences(NliTriples("t", ["a", "a"], ["b", "c"], ["c", "d"])).texts == ["a", "b", "c", "d"]
    assert to_sentences(ScoredPairs("p", ["x", "y"], ["y", "x"], [1, 2])).texts == ["x", "y"]
    assert to_sentences(_labelled({"k": 2})).texts == ["k-0", "k-1"]
    assert to_sentences(Sentences("s", ["a", "a", "b"])).texts == ["a", "b"]
    assert to_sentences(NliPairs("n", ["p", "p"], ["h", "p"], ["neutral"] * 2)).texts == ["p", "h"]


def test_convert():
    nli = NliPairs("n", ["p", "p"], ["e", "c"], ["entailment", "contradiction"])
    assert convert(nli, "nli-pairs") is nli
    assert convert(nli, "triples").kind == "triples"
    assert convert(nli, "sentences").texts == ["p", "e", "c"]
    with pytest.raises(DataError, match="n: a nli-pairs data set cannot be used as labelled"):
        convert(nli, "labelled")
