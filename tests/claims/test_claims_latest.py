"""engine.claims.latest and the Overview page's claims section: the saved table round-trips, damaged files are
one line, and the page shows the latest table's date, command (the budget) and both verdicts (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from engine.claims import latest
from engine.claims.setups import by_keys
from engine.claims.table import claim_row, markdown
from engine.core import paths
from engine.core.errors import ConfigError
from engine.core.settings import REPO_ROOT

GOOD = {
    "isoscore_start": 0.3,
    "isoscore_end": 0.01,
    "silhouette_start": 0.0,
    "silhouette_end": 0.6,
    "pearson_r": -0.9,
    "spearman_rho": -1.0,
}


def _table() -> dict:
    i, iv = by_keys(["i", "iv"])
    weak = {**GOOD, "silhouette_start": -0.11, "silhouette_end": -0.005, "pearson_r": -0.97}
    rows = [
        claim_row(i, [GOOD, GOOD], 10_662),  # holds; r −0.9 is not the paper's −0.808
        claim_row(iv, [weak], 14_307, settings={**iv.settings, "steps": 200}),
    ]
    return latest.record(
        rows, command="python -m engine claims --seeds 2", seeds=[0, 1], out="o", markdown=markdown(rows)
    )


def test_saved_table_round_trips(own_cache: Path) -> None:
    assert latest.load() is None
    table = _table()
    path = latest.save(table)
    assert path == latest.table_path("paper") and path.parent == paths.claims_table_path().parent
    assert latest.load() == json.loads(json.dumps(table))
    rows = latest.load()["rows"]
    assert [r["lab_verdict"] for r in rows] == [
        "holds (2/2)",
        "does not hold (0/1: silhouette ends below 0.1)",
    ]
    assert rows[0]["paper_verdict"] == "does not match (0/2: r not within 0.05 of −0.808)"
    assert rows[1]["updates"] == "200 of 1000" and rows[1]["paper_protocol"] is False


@pytest.mark.parametrize("text", ["{", "[]", '{"format": 9, "rows": []}', '{"format": 1, "rows": [1]}'])
def test_damaged_saved_table_is_one_line(own_cache: Path, text: str) -> None:
    path = paths.claims_table_path()
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        latest.load()
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.fixture
def overview(own_cache: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")
    monkeypatch.setenv("EMBEDLAB_WARM_ENCODER", "0")
    monkeypatch.setenv("EMBEDLAB_UI_NICE", "0")
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    st.cache_resource.clear()

    def run() -> AppTest:
        at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=120)
        at.run()
        assert not at.exception
        return at

    yield run
    from ui.runs import registry

    registry().shutdown(timeout=30)
    st.cache_resource.clear()


def _section(at: AppTest):
    found = [e for e in at.expander if "claims table" in e.label]
    assert len(found) == 1
    return found[0]


def test_overview_shows_the_latest_table(overview) -> None:
    section = _section(overview())
    assert "No claims table saved yet" in section.caption[0].value
    table = _table()
    latest.save(table)
    section = _section(overview())
    caption = section.caption[0].value
    assert table["date"] in caption and "python -m engine claims --seeds 2" in caption
    frame = section.dataframe[0].value
    assert list(frame["setup"]) == ["(i) polarity", "(iv) supersenses, 45 labels"]
    assert list(frame["updates"]) == ["1000", "200 of 1000"]
    assert list(frame["lab verdict"]) == [r["lab_verdict"] for r in table["rows"]]
    assert list(frame["paper verdict"]) == [r["paper_verdict"] for r in table["rows"]]
    assert "budget" in section.caption[1].value


def test_overview_names_a_damaged_table(overview) -> None:
    path = paths.claims_table_path()
    path.parent.mkdir(parents=True)
    path.write_text("{", encoding="utf-8")
    section = _section(overview())
    assert "unreadable" in section.warning[0].value


def test_a_short_table_never_replaces_a_longer_one(own_cache: Path) -> None:
    full = _table()
    short = {**_table(), "protocol": "short", "command": "python -m engine claims --short", "seeds": [0]}
    short["length"] = 30 * 2
    latest.save(full)
    latest.save(short)  # saved later, under its own protocol
    assert latest.table_path("short").is_file() and latest.table_path("paper").is_file()
    assert latest.load()["command"] == full["command"]  # the longest
    assert latest.length(full) == 1200 * 2
    assert latest.protocol_of(True, {}) == "short" and latest.protocol_of(False, {}) == "paper"
    assert latest.protocol_of(False, {"steps": 30, "limit": 300}) == "budget-limit-300-steps-30"


def test_a_table_saved_before_its_length_was_recorded_is_measured_by_its_updates() -> None:
    old = {"rows": [{"updates": "30 of 1000"}, {"updates": "1,000"}], "seeds": [0, 1]}
    assert latest.length(old) == 1030 * 2


def test_overview_shows_the_longest_table_and_says_which(overview) -> None:
    full = _table()
    latest.save(full)
    latest.save({**_table(), "protocol": "short", "command": "claims --short", "length": 60})
    caption = _section(overview()).caption[0].value
    assert full["command"] in caption and "the setups' own protocol" in caption
