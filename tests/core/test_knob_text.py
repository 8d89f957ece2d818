"""A knob's value as text and back (engine.core.knob_text): every knob's default round-trips, bad texts are
one line naming the knob."""

from __future__ import annotations

import pytest

from engine.core import knob_text
from engine.core.errors import ConfigError
from engine.core.knobs import knob_of, knobs
from engine.experiments import EXPERIMENTS

ALL = [(kind, item) for kind, experiment in EXPERIMENTS.items() for item in knobs(experiment.config_class)]


def simcse(name: str):
    experiment = EXPERIMENTS["simcse"]
    return knob_of(experiment.config_class, name)


@pytest.mark.parametrize(("kind", "item"), ALL, ids=[f"{k}.{i.name}" for k, i in ALL])
def test_every_default_round_trips(kind: str, item) -> None:
    assert knob_text.parse(item, knob_text.text(item, item.default)) == item.default


def test_texts_are_read_by_the_declaration() -> None:
    assert knob_text.parse(simcse("same_mask"), "TRUE") is True
    assert knob_text.parse(simcse("same_mask"), "0") is False
    assert knob_text.parse(simcse("steps"), " 300 ") == 300
    assert knob_text.parse(simcse("eval_limit"), "0") is None  # 0 means all
    assert knob_text.parse(simcse("dropout"), "0.25") == 0.25
    assert knob_text.parse(simcse("augment"), "crop") == "crop"
    assert knob_text.parse(simcse("save_encoder"), "") is None


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("steps", "-3", "steps"),
        ("steps", "1.5", "whole number"),
        ("dropout", "lots", "a number"),
        ("dropout", "nan", "finite"),
        ("dropout", "1.5", "dropout"),
        ("same_mask", "maybe", "true or false"),
        ("augment", "shuffle", "augment"),
        ("steps", "9" * 300, "too long"),
    ],
)
def test_bad_texts_are_one_line(name: str, text: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        knob_text.parse(simcse(name), text)


def test_read_keeps_the_good_and_names_the_rest() -> None:
    items = [simcse("steps"), simcse("same_mask")]
    values, ignored = knob_text.read(items, {"steps": "40", "same_mask": "x", "pooler": "cls"})
    assert values == {"steps": 40}
    assert len(ignored) == 2 and "same_mask" in ignored[0] and "'pooler' is not a setting" in ignored[1]


def test_changed_lists_only_what_differs_from_the_default() -> None:
    items = [simcse("steps"), simcse("same_mask"), simcse("eval_limit"), simcse("lr")]
    config = {"steps": 100, "same_mask": True, "eval_limit": None, "lr": 3e-5}
    assert knob_text.changed(items, config) == {"same_mask": "true", "eval_limit": "0"}
    assert knob_text.changed(items, {"steps": 100, "lr": 1e-4}) == {"lr": "0.0001"}
