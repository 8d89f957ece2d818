"""``python -m engine claims``: a ``--short`` table of two tiny setups over 2 seeds, its structure, and its
mean and std equal to NumPy's over the member runs' own summary.json; the verdict and the negligible-std
rule; the flags' one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from engine.claims.setups import KEYS, PAPER_KEYS, SETUPS, by_keys
from engine.claims.table import COLUMNS, NEGLIGIBLE, STRONG, claim_row, run_holds, stat
from engine.cli import main
from engine.errors import ConfigError
from engine.groups import read_group

NUMBER = r"(−?\d+\.\d+)"


def _polarity(root: Path) -> Path:
    """A tiny rt-polarity folder: 40 positive and 40 negative sentences."""
    folder = root / "rt-polarity"
    folder.mkdir(parents=True)
    good = [f"a wonderful , moving film with a great cast number {i} ." for i in range(40)]
    bad = [f"a dull , tedious mess that wastes its actors number {i} ." for i in range(40)]
    (folder / "rt-polarity.pos").write_text("\n".join(good) + "\n", encoding="latin-1")
    (folder / "rt-polarity.neg").write_text("\n".join(bad) + "\n", encoding="latin-1")
    return root


def _cell_numbers(cell: str) -> list[float]:
    return [float(x.replace("−", "-")) for x in re.findall(NUMBER, cell)]


@pytest.fixture(scope="module")
def short_table(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, int]:
    root = tmp_path_factory.mktemp("claims")
    data = _polarity(root / "data")
    out = root / "runs"
    import contextlib
    import io

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(
            ["claims", "--setups", "demo,app-b", "--seeds", "2", "--short", "--out", str(out)]
            + ["--data-dir", str(data)]
        )
    return stdout.getvalue(), out, code


def test_short_table_structure(short_table: tuple[str, Path, int]) -> None:
    text, out, code = short_table
    assert code == 0
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(COLUMNS)
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert [row[0] for row in rows] == [s.title for s in by_keys(["demo", "app-b"])]
    for row in rows:
        assert len(row) == len(COLUMNS) and row[COLUMNS.index("seeds")] == "2"
        assert row[COLUMNS.index("finding")].startswith(("holds (", "does not hold ("))
    assert rows[0][COLUMNS.index("items")] == "80" and rows[1][COLUMNS.index("items")] == "300"  # table order
    for key in ("demo", "app-b"):
        members = sorted((out / f"claims-{key}" / "runs").iterdir())
        assert [m.name for m in members] == ["seed-0", "seed-1"]
        assert all(json.loads((m / "config.json").read_text())["steps"] == 30 for m in members)
        group = read_group(out / f"claims-{key}")  # each setup is a group of engine.groups: Compare lists it
        assert group.kind == "probe" and group.grid == {"seed": [0, 1]}
        assert [m.status for m in group.members] == ["done", "done"]


@pytest.mark.parametrize("index,key", [(0, "app-b"), (1, "demo")])
def test_short_table_means_and_stds_equal_numpy(
    short_table: tuple[str, Path, int], index: int, key: str
) -> None:
    text, out, _ = short_table
    row = [
        c.strip() for c in [line for line in text.splitlines() if line.startswith("|")][2 + index].split("|")
    ]
    row = row[1:-1]
    summaries = [
        json.loads((out / f"claims-{key}" / "runs" / f"seed-{k}" / "summary.json").read_text())
        for k in (0, 1)
    ]

    def expected(name: str) -> tuple[float, float]:
        values = np.array([s[name] for s in summaries], dtype=float)
        return values.mean(), values.std(ddof=1)

    iso = _cell_numbers(row[COLUMNS.index("IsoScore start → end")])
    sil = _cell_numbers(row[COLUMNS.index("silhouette start → end")])
    r = _cell_numbers(row[COLUMNS.index("Pearson r")])
    rho = _cell_numbers(row[COLUMNS.index("Spearman ρ")])
    for shown, names, digits in (
        (iso, ("isoscore_start", "isoscore_end"), 4),
        (sil, ("silhouette_start", "silhouette_end"), 3),
        (r, ("pearson_r",), 3),
        (rho, ("spearman_rho",), 4),
    ):
        want = [v for name in names for v in expected(name)]
        np.testing.assert_allclose(shown, want, rtol=0, atol=0.6 * 10**-digits)
    group_summary = json.loads((out / f"claims-{key}" / "summary.json").read_text())["cells"][0]["figures"]
    assert group_summary["pearson_r"]["mean"] == pytest.approx(expected("pearson_r")[0], abs=1e-12)
    assert "seed-0: r" not in text  # progress goes to stderr


def test_finished_members_are_not_run_again(short_table: tuple[str, Path, int], capsys) -> None:
    _, out, _ = short_table
    before = (out / "claims-demo" / "runs" / "seed-1" / "metrics.csv").stat().st_mtime_ns
    assert (
        main(["claims", "--setups", "demo", "--seeds", "2", "--short", "--out", str(out), "--markdown"]) == 0
    )
    assert (out / "claims-demo" / "runs" / "seed-1" / "metrics.csv").stat().st_mtime_ns == before
    assert "| demo corpus" in capsys.readouterr().out


def test_table_stat_against_numpy() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(size=5)
    s = stat([*values.tolist(), None, float("nan"), "x"])
    assert s.n == 5 and s.mean == pytest.approx(values.mean(), abs=1e-12)
    assert s.std == pytest.approx(values.std(ddof=1), abs=1e-12)
    assert stat([0.5]).std == 0.0 and stat([]).mean is None and stat([]).text() == "—"


def test_verdict_and_negligible() -> None:
    good = {
        "isoscore_start": 0.3,
        "isoscore_end": 0.01,
        "silhouette_start": 0.0,
        "silhouette_end": 0.6,
        "pearson_r": STRONG - 0.01,
        "spearman_rho": -1.0,
    }
    assert run_holds(good) == []
    assert run_holds({**good, "pearson_r": STRONG + 0.01}) == ["r > −0.8"]
    assert run_holds({**good, "isoscore_end": 0.4, "spearman_rho": None}) == [
        "IsoScore does not fall",
        "ρ > −0.8",
    ]
    setup = by_keys(["i"])[0]
    row = claim_row(setup, [good, {**good, "pearson_r": 0.1}], 2275)
    assert not row.holds and row.verdict == "does not hold (1/2: r > −0.8)"
    assert row.negligible is False  # r's std is far above the criterion
    tight = claim_row(setup, [good, {**good, "silhouette_end": 0.6 + NEGLIGIBLE / 2}], 2275)
    assert tight.holds and tight.negligible is True
    assert claim_row(setup, [good], 10).negligible is None
    sampled = claim_row(setup, [good], 10_662, sample=2275, fixed=True)
    assert sampled.items_text == "10,662 (measured on one fixed sample of 2,275)"
    assert claim_row(setup, [good], 2275, sample=2275, fixed=True).items_text == "2,275"


def test_setups_and_flags() -> None:
    assert tuple(k for k in KEYS if k != "demo") == PAPER_KEYS and len(SETUPS) == 8
    nouns = by_keys(["iv-nouns"])[0]
    assert (
        nouns.settings["limit"] == nouns.items == 2275
        and nouns.settings["data"] == "wordnet-noun-supersenses"
    )
    assert by_keys(["app-b"])[0].settings["objective"] == "triplet"
    with pytest.raises(ConfigError, match="unknown v"):
        by_keys(["v"])


def test_bad_flags_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["claims", "--seeds", "1,1", "--out", str(tmp_path)]) == 2
    assert main(["claims", "--setups", "nope", "--out", str(tmp_path)]) == 2
    assert main(["claims", "--steps", "0", "--setups", "demo", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and err[0].startswith("error: --seeds") and err[1].startswith("error: --setups")
    assert "--steps" in err[2]
