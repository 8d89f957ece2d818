"""engine.claims.table: the lab's verdict (with the final-silhouette rule), the paper's verdict against each
setup's own r, the updates column under a budget, the Markdown table, the negligible-std rule."""

from __future__ import annotations

import numpy as np
import pytest

from engine.claims.setups import KEYS, PAPER_KEYS, SETUPS, by_keys
from engine.claims.table import (
    COLUMNS,
    MIN_SILHOUETTE,
    NEGLIGIBLE,
    PAPER_R_TOLERANCE,
    PAPER_RHO,
    STRONG,
    budget_notes,
    claim_row,
    markdown,
    paper_mismatch,
    run_holds,
    stat,
)
from engine.core.errors import ConfigError

GOOD = {
    "isoscore_start": 0.3,
    "isoscore_end": 0.01,
    "silhouette_start": 0.0,
    "silhouette_end": 0.6,
    "pearson_r": -0.808,
    "spearman_rho": -0.9999,
}
SETUP_I = by_keys(["i"])[0]


def test_lab_verdict_rules() -> None:
    assert run_holds(GOOD) == []
    assert run_holds({**GOOD, "pearson_r": STRONG + 0.01}) == ["r > −0.8"]
    assert run_holds({**GOOD, "isoscore_end": 0.4, "spearman_rho": None}) == [
        "IsoScore does not fall",
        "ρ > −0.8",
    ]
    # the silhouette rose, but ends with no clusters: (iv) at 200 updates, −0.114 → −0.005
    weak = {**GOOD, "silhouette_start": -0.114, "silhouette_end": -0.005}
    assert run_holds(weak) == [f"silhouette ends below {MIN_SILHOUETTE}"]
    assert run_holds({**GOOD, "silhouette_end": MIN_SILHOUETTE}) == []
    assert run_holds({**GOOD, "silhouette_end": float("nan")}) != []


def test_paper_verdict_uses_each_setups_own_r() -> None:
    assert paper_mismatch(GOOD, -0.808) == []
    assert paper_mismatch({**GOOD, "pearson_r": -0.808 - PAPER_R_TOLERANCE}, -0.808) == []
    assert paper_mismatch({**GOOD, "pearson_r": -0.859}, -0.808) == ["r not within 0.05 of −0.808"]
    assert paper_mismatch({**GOOD, "spearman_rho": PAPER_RHO}, -0.808) == ["ρ not below −0.998"]
    assert paper_mismatch({**GOOD, "spearman_rho": None, "pearson_r": None}, -0.808) == [
        "ρ not below −0.998",
        "r not within 0.05 of −0.808",
    ]
    # the audit's (iii) at 1000 updates: r −0.760 against the paper's −0.947; its lab verdict fails on r too
    pos = by_keys(["iii"])[0]
    row = claim_row(pos, [{**GOOD, "pearson_r": -0.760, "spearman_rho": -1.0}], 14_307)
    assert row.verdict == "does not hold (0/1: r > −0.8)"
    assert row.paper_verdict == "does not match (0/1: r not within 0.05 of −0.947)"
    assert row.matches_paper is False
    row = claim_row(SETUP_I, [GOOD, {**GOOD, "pearson_r": -0.807}], 10_662)
    assert row.paper_verdict == "matches (2/2)" and row.matches_paper is True and row.holds


def test_setups_without_a_paper_r_have_no_paper_verdict() -> None:
    for key in ("app-a", "app-b", "demo"):
        row = claim_row(by_keys([key])[0], [GOOD], 600)
        assert row.paper_held is None and row.matches_paper is None
        assert row.paper_verdict == "no figure to compare"
    assert claim_row(SETUP_I, [], 0).paper_verdict == "no finished run"
    assert all(s.paper_r is not None for s in SETUPS if s.key in ("i", "ii", "iii", "iv", "iv-nouns"))


def test_updates_column_names_every_budget() -> None:
    own = claim_row(SETUP_I, [GOOD], 10_662)
    assert own.updates_text == "1000" and own.budget == () and own.paper_verdict == "matches (1/1)"
    budget = {**SETUP_I.settings, "steps": 200, "metric_every": 5, "sample_size": 2275, "fixed_sample": True}
    row = claim_row(SETUP_I, [GOOD], 10_662, settings=budget)
    assert row.updates_text == "200 of 1000; metrics every 5th update; measured on one fixed sample of 2,275"
    assert row.paper_verdict == "matches (1/1); not the paper's protocol"
    every = claim_row(SETUP_I, [GOOD], 10_662, settings={**SETUP_I.settings, "metric_every": 20})
    assert every.updates_text == "1000; metrics every 20th update"
    short = claim_row(SETUP_I, [GOOD], 300, settings={**SETUP_I.settings, "steps": 30, "limit": 300})
    assert short.updates_text == "30 of 1000; limit 300 items"
    app_a = by_keys(["app-a"])[0]
    assert app_a.length == 250 and claim_row(app_a, [GOOD], 10_662).updates_text == "250"
    assert budget_notes(app_a, app_a.settings) == ()


def test_paper_lengths() -> None:
    assert {s.key: s.length for s in SETUPS} == {
        "i": 1000,
        "ii": 1000,
        "iii": 1000,
        "iv": 1000,
        "iv-nouns": 1000,
        "app-a": 250,
        "app-b": 1000,
        "demo": 150,
    }
    assert all(s.settings.get("metric_every", 1) == 1 for s in SETUPS)  # metrics after every update
    assert "250" in by_keys(["app-a"])[0].title


def test_markdown_has_every_column_and_the_budget() -> None:
    budget = {**SETUP_I.settings, "steps": 200}
    rows = [claim_row(SETUP_I, [GOOD, GOOD], 10_662, settings=budget), claim_row(by_keys(["demo"])[0], [], 0)]
    lines = markdown(rows).splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(COLUMNS)
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert all(len(row) == len(COLUMNS) for row in cells)
    assert cells[0][COLUMNS.index("updates")] == "200 of 1000"
    assert cells[0][COLUMNS.index("source")] == "[experiments, setup (i)](paper.md#setup-i)"
    assert cells[0][COLUMNS.index("lab verdict")] == "holds (2/2)"
    assert cells[0][COLUMNS.index("paper verdict")] == "matches (2/2); not the paper's protocol"
    assert cells[1][COLUMNS.index("lab verdict")] == "no finished run"
    assert cells[1][COLUMNS.index("items")] == "—"


def test_paper_md_has_every_anchor_and_figure() -> None:
    from engine.core.settings import REPO_ROOT

    text = (REPO_ROOT / "docs" / "paper.md").read_text(encoding="utf-8")
    for setup in SETUPS:
        part, anchor = setup.source
        if part:
            assert f'<a id="{anchor}"></a>' in text
        if setup.paper_r is not None:
            assert f"**{setup.paper_r:.3f}**".replace("-", "−") in text


def test_stat_against_numpy() -> None:
    values = np.random.default_rng(3).normal(size=5)
    s = stat([*values.tolist(), None, float("nan"), "x"])
    assert s.n == 5 and s.mean == pytest.approx(values.mean(), abs=1e-12)
    assert s.std == pytest.approx(values.std(ddof=1), abs=1e-12)
    assert stat([0.5]).std == 0.0 and stat([]).mean is None and stat([]).text() == "—"


def test_negligible_and_items() -> None:
    row = claim_row(SETUP_I, [GOOD, {**GOOD, "pearson_r": 0.1}], 2275)
    assert row.negligible is False
    tight = claim_row(SETUP_I, [GOOD, {**GOOD, "silhouette_end": 0.6 + NEGLIGIBLE / 2}], 2275)
    assert tight.negligible is True and claim_row(SETUP_I, [GOOD], 10).negligible is None
    sampled = claim_row(SETUP_I, [GOOD], 10_662, sample=2275, fixed=True)
    assert sampled.items_text == "10,662 (measured on one fixed sample of 2,275)"


def test_setups_and_keys() -> None:
    assert tuple(k for k in KEYS if k != "demo") == PAPER_KEYS and len(SETUPS) == 8
    nouns = by_keys(["iv-nouns"])[0]
    assert nouns.settings["limit"] == nouns.items == 2275
    assert by_keys(["app-b"])[0].settings["objective"] == "triplet"
    assert all(s.settings["lecture_pace"] is False for s in SETUPS)
    with pytest.raises(ConfigError, match="unknown v"):
        by_keys(["v"])
