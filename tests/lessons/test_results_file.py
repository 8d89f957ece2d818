"""A damaged engine/lessons/results.json costs only its figures (issue 47, harmful case 5): what is not well
formed prints "…" with one warning, never an exception on a page or at ``import engine.lessons.texts``;
``lessons check --record`` refuses to start over it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import cli, experiments
from engine.lessons import check, numbers, results_file

REAL = json.loads(numbers.RESULTS.read_text(encoding="utf-8"))
PRESET = next(iter(REAL["presets"]))
CLAIM = next(iter(REAL["claims"]))
IMAGE = "![x](https://example.com/x.png)"


def _damaged(change) -> str:
    """The committed file's text after ``change`` (which edits a copy in place, or returns what replaces
    it whole, as ``("whole", value)``)."""
    data = json.loads(json.dumps(REAL))
    result = change(data)
    return json.dumps(result[1] if isinstance(result, tuple) else data)


DAMAGED = {
    "root list": lambda d: ("whole", []),
    "root null": lambda d: ("whole", None),
    "claims a string": lambda d: d.update(claims="x"),
    "preset without seeds": lambda d: d["presets"][PRESET].pop("seeds") and None,
    "preset with no seeds": lambda d: d["presets"][PRESET].update(seeds=[]),
    "a 401-digit figure": lambda d: [c["figures"].update(end=10**400) for c in d["claims"].values()],
    "holds as a word": lambda d: [c.update(holds="no") for c in d["claims"].values()],
    "figures a list": lambda d: d["claims"][CLAIM].update(figures=[1, 2]),
    "an image in every text": lambda d: (
        [
            entry.update({key: IMAGE for key, value in entry.items() if isinstance(value, str)})
            for part in ("claims", "presets")
            for entry in d[part].values()
        ]
        + [c["settings"].update({k: IMAGE for k in c["settings"]}) for c in d["claims"].values()]
    ),
}


def _fill_every_lesson(path: Path) -> list[str]:
    """What every page prints of every lesson (as ``engine.lessons.texts`` fills them) from ``path``."""
    results = numbers.load(path)
    shown = []
    for taught in experiments.lessons().values():
        filled = numbers.fill_lesson(taught, results)
        shown += [filled.intro, *filled.watch, *filled.measures.values()]
    return shown


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_a_damaged_results_file_prints_dots_and_warns_once(tmp_path: Path, caplog, name: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(_damaged(DAMAGED[name]), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        first = _fill_every_lesson(path)
        _fill_every_lesson(path)
    assert any("…" in text for text in first)
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "damaged" in r.getMessage()]
    assert len(warned) == 1, [r.getMessage() for r in warned]


def test_no_recorded_text_draws_markup(tmp_path: Path) -> None:
    """A result's Markdown rendered in the pages' About popover and fetched a remote image."""
    path = tmp_path / "results.json"
    path.write_text(_damaged(DAMAGED["an image in every text"]), encoding="utf-8")
    assert not any("example.com" in text for text in _fill_every_lesson(path))


def test_holds_as_a_word_is_not_holds_here(tmp_path: Path) -> None:
    """``"holds": "no"`` printed "holds here"."""
    path = tmp_path / "results.json"
    path.write_text(_damaged(DAMAGED["holds as a word"]), encoding="utf-8")
    assert "holds" not in numbers.load(path)["claims"][CLAIM]


def test_the_committed_results_file_is_well_formed() -> None:
    assert results_file.read(numbers.RESULTS)[1] == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _mutations() -> st.SearchStrategy:
    """The real file with one value somewhere replaced by any JSON value (or the whole file replaced)."""
    paths = [("claims", CLAIM, key) for key in REAL["claims"][CLAIM]]
    paths += [("presets", PRESET, key) for key in REAL["presets"][PRESET]]
    paths += [("claims", CLAIM, "figures", key) for key in REAL["claims"][CLAIM]["figures"]]
    paths += [("claims",), ("presets",), ("claims", CLAIM), ("presets", PRESET), ()]
    return st.tuples(st.sampled_from(paths), JSON)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(change=_mutations())
def test_any_damage_is_never_an_exception(tmp_path: Path, change) -> None:
    where, value = change
    data = json.loads(json.dumps(REAL))
    if not where:
        data = value
    else:
        holder = data
        for key in where[:-1]:
            holder = holder[key]
        holder[where[-1]] = value
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _fill_every_lesson(path)


def test_record_refuses_to_start_over_a_damaged_file(tmp_path: Path, monkeypatch, capsys) -> None:
    """``--record`` ran the whole check and then failed with AttributeError."""
    path = tmp_path / "results.json"
    path.write_text('{"claims": "x"}', encoding="utf-8")
    monkeypatch.setattr(numbers, "RESULTS", path)

    def never(*args, **kwargs):
        raise AssertionError("the check ran")

    monkeypatch.setattr(check, "checked", never)
    assert cli.main(["lessons", "check", "--short", "--record"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is damaged (claims is not an object)" in err[0]
    assert path.read_text(encoding="utf-8") == '{"claims": "x"}'


def test_a_papers_claim_is_said_to_go_its_way_never_to_hold() -> None:
    """The lessons' texts word a paper's claim as the check does: compared on the lab's start, not checked, so
    "goes the paper's way here" (or not), never "holds here"."""
    shown = " ".join(_fill_every_lesson(numbers.RESULTS))
    assert "paper's way here" in shown
    assert "holds here" not in shown and "not hold here" not in shown
