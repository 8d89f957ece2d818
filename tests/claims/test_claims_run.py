"""``python -m engine claims`` end to end: a ``--short`` table of two tiny setups over 2 seeds (its structure,
its mean and std equal to NumPy's over the member runs' own summary.json), the Markdown file and the saved
table, finished runs read again (with another device too) without training, read_setup, the flags' errors."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from engine.claims import latest
from engine.claims.run import MissingRuns, group_name, read_setup
from engine.claims.setups import by_keys
from engine.claims.table import COLUMNS
from engine.cli import main
from engine.groups import read_group

NUMBER = r"(−?\d+\.\d+)"
ARGS = ["claims", "--setups", "demo,app-b", "--seeds", "2", "--short"]


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


def _table_lines(text: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line[:1] == "|"
    ]


@pytest.fixture(scope="module")
def short_table(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("claims")
    data = _polarity(root / "data")
    out = root / "runs"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main([*ARGS, "--out", str(out), "--data-dir", str(data), "--markdown-out", str(root / "t.md")])
    return {"text": stdout.getvalue(), "out": out, "code": code, "md": root / "t.md", "data": data}


def test_short_table_structure(short_table: dict) -> None:
    text, out = short_table["text"], short_table["out"]
    assert short_table["code"] == 0
    lines = _table_lines(text)
    assert lines[0] == list(COLUMNS)
    rows = lines[2:]
    assert [row[0] for row in rows] == [s.title for s in by_keys(["demo", "app-b"])]
    for row in rows:
        assert len(row) == len(COLUMNS) and row[COLUMNS.index("seeds")] == "2"
        assert row[COLUMNS.index("lab verdict")].startswith(("holds (", "does not hold ("))
        assert row[COLUMNS.index("paper verdict")] == "no figure to compare"
    assert rows[0][COLUMNS.index("items")] == "80" and rows[1][COLUMNS.index("items")] == "300"  # table order
    assert rows[0][COLUMNS.index("updates")] == "30 of 1000; limit 300 items"  # app-b: the paper's 1000
    assert rows[1][COLUMNS.index("updates")] == "30 of 150; limit 300 items"  # demo: its preset's 150
    for key in ("demo", "app-b"):
        folder = out / f"claims-{key}-short"  # the budget in the folder: never over paper-length runs
        assert folder.name == group_name(by_keys([key])[0], short=True)
        members = sorted((folder / "runs").iterdir())
        assert [m.name for m in members] == ["seed-0", "seed-1"]
        assert all(json.loads((m / "config.json").read_text())["steps"] == 30 for m in members)
        group = read_group(folder)  # each setup is a group of engine.groups: Compare lists it
        assert group.kind == "probe" and group.grid == {"seed": [0, 1]}
        assert [m.status for m in group.members] == ["done", "done"]


def test_markdown_file_and_saved_table(short_table: dict) -> None:
    table = "\n".join(line for line in short_table["text"].splitlines() if line.startswith("|"))
    assert short_table["md"].read_text(encoding="utf-8") == table + "\n"
    saved = latest.load()
    assert saved is not None and saved["markdown"] == table
    assert saved["command"].startswith("python -m engine claims --seeds 2 --setups demo,app-b --out ")
    assert saved["command"].endswith("--short") and saved["seeds"] == [0, 1]
    assert [row["key"] for row in saved["rows"]] == ["app-b", "demo"]  # the table's order
    assert saved["rows"][0]["updates"] == "30 of 1000; limit 300 items"
    assert all(row["paper_protocol"] is False for row in saved["rows"])
    assert saved["rows"][0]["lab_verdict"] == _table_lines(table)[2][COLUMNS.index("lab verdict")]


@pytest.mark.parametrize("index,key", [(0, "app-b"), (1, "demo")])
def test_short_table_means_and_stds_equal_numpy(short_table: dict, index: int, key: str) -> None:
    row = _table_lines(short_table["text"])[2 + index]
    folder = short_table["out"] / f"claims-{key}-short"
    summaries = [json.loads((folder / "runs" / f"seed-{k}" / "summary.json").read_text()) for k in (0, 1)]

    def expected(name: str) -> tuple[float, float]:
        values = np.array([s[name] for s in summaries], dtype=float)
        return values.mean(), values.std(ddof=1)

    for column, names, digits in (
        ("IsoScore start → end", ("isoscore_start", "isoscore_end"), 4),
        ("silhouette start → end", ("silhouette_start", "silhouette_end"), 3),
        ("Pearson r", ("pearson_r",), 3),
        ("Spearman ρ", ("spearman_rho",), 4),
    ):
        want = [v for name in names for v in expected(name)]
        shown = _cell_numbers(row[COLUMNS.index(column)])
        np.testing.assert_allclose(shown, want, rtol=0, atol=0.6 * 10**-digits)
    assert "seed-0: r" not in short_table["text"]  # progress goes to stderr


def test_finished_runs_are_read_again_on_another_device(short_table: dict, capsys) -> None:
    out = short_table["out"]
    metrics = out / "claims-demo-short" / "runs" / "seed-1" / "metrics.csv"
    before = metrics.stat().st_mtime_ns
    first = _table_lines(short_table["text"])[3]  # the demo's row
    for extra in ([], ["--device", "cpu"]):  # the device is not part of a run's identity
        assert (
            main(
                [
                    "claims",
                    "--setups",
                    "demo",
                    "--seeds",
                    "2",
                    "--short",
                    "--out",
                    str(out),
                    "--markdown",
                    *extra,
                ]
            )
            == 0
        )
        assert metrics.stat().st_mtime_ns == before
        assert _table_lines(capsys.readouterr().out)[2] == first
    assert read_group(out / "claims-demo-short").base["device"] == "cpu"


def test_read_setup_runs_nothing_and_names_what_is_missing(short_table: dict, tmp_path: Path) -> None:
    demo = by_keys(["demo"])[0]
    row = read_setup(demo, [0, 1], short_table["out"], short=True)
    assert row.seeds == 2 and row.items == 300 and row.updates_text == "30 of 150; limit 300 items"
    with pytest.raises(MissingRuns, match=r"claims-demo .*missing"):
        read_setup(demo, [0, 1], short_table["out"])  # the paper-length group was never made
    with pytest.raises(MissingRuns, match="other settings or seeds"):
        read_setup(demo, [0, 1, 2], short_table["out"], short=True)


def test_bad_flags_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["claims", "--seeds", "1,1", "--out", str(tmp_path)]) == 2
    assert main(["claims", "--setups", "nope", "--out", str(tmp_path)]) == 2
    assert main(["claims", "--steps", "0", "--setups", "demo", "--out", str(tmp_path)]) == 2
    assert main(["claims", "--device", "tpu", "--setups", "demo", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and err[0].startswith("error: --seeds") and err[1].startswith("error: --setups")
    assert "--steps" in err[2] and err[3].startswith("error: --device: unknown device 'tpu'")
