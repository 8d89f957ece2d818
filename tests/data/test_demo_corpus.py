"""Sanity checks for the built-in demo corpus files (format, counts, balance, duplicates).

Fast: reads the JSONL files only; no model is loaded.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "engine" / "data" / "demo"


def _read(name: str) -> list[dict]:
    path = DEMO / name
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"{name}:{n}: blank line"
        row = json.loads(line)
        assert isinstance(row, dict), f"{name}:{n}: not an object"
        rows.append(row)
    return rows


def _check_strings(rows: list[dict], keys: tuple[str, ...], name: str) -> None:
    for n, row in enumerate(rows, start=1):
        assert set(row) >= set(keys), f"{name}:{n}: missing fields"
        for key in keys:
            value = row[key]
            assert isinstance(value, str) and value.strip(), f"{name}:{n}: empty {key}"
            assert value == value.strip(), f"{name}:{n}: {key} has surrounding spaces"


@pytest.fixture(scope="module")
def topics() -> list[dict]:
    return _read("topics.jsonl")


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    return _read("pairs.jsonl")


@pytest.fixture(scope="module")
def nli() -> list[dict]:
    return _read("nli.jsonl")


def test_topics_counts_and_balance(topics: list[dict]) -> None:
    _check_strings(topics, ("text", "topic", "sentiment"), "topics.jsonl")
    per_topic = Counter(r["topic"] for r in topics)
    assert len(per_topic) >= 6
    assert all(n >= 100 for n in per_topic.values()), per_topic
    assert {r["sentiment"] for r in topics} == {"positive", "negative"}
    for topic in per_topic:
        polarity = Counter(r["sentiment"] for r in topics if r["topic"] == topic)
        assert polarity["positive"] == polarity["negative"], (topic, polarity)


def test_topics_no_duplicates_and_sane_lengths(topics: list[dict]) -> None:
    texts = [r["text"].casefold() for r in topics]
    assert len(set(texts)) == len(texts)
    lengths = [len(r["text"].split()) for r in topics]
    assert min(lengths) >= 3 and max(lengths) <= 40


def test_pairs_counts_and_scores(pairs: list[dict]) -> None:
    _check_strings(pairs, ("sentence1", "sentence2"), "pairs.jsonl")
    assert len(pairs) >= 200
    scores = [r["score"] for r in pairs]
    assert all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores)
    assert all(0.0 <= s <= 5.0 for s in scores)
    assert sum(s > 4 for s in scores) >= 40
    # graded: every unit band of the 0-5 scale is used
    assert {min(int(s), 4) for s in scores} == {0, 1, 2, 3, 4}


def test_pairs_no_duplicates(pairs: list[dict]) -> None:
    keys = [(r["sentence1"].casefold(), r["sentence2"].casefold()) for r in pairs]
    assert len(set(keys)) == len(keys)
    assert all(a != b for a, b in keys)


def test_nli_counts_and_distinct(nli: list[dict]) -> None:
    fields = ("premise", "entailment", "contradiction")
    _check_strings(nli, fields, "nli.jsonl")
    assert len(nli) >= 300
    for row in nli:
        assert len({row[k].casefold() for k in fields}) == 3, row


def test_nli_no_duplicates(nli: list[dict]) -> None:
    texts = [r[k].casefold() for r in nli for k in ("premise", "entailment", "contradiction")]
    assert len(set(texts)) == len(texts)
