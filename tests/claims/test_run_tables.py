"""scripts/run_tables.py (the ``results:script`` tables of docs/results.md): each figure against a value
computed here from its definition on run folders written by hand; a missing or unfinished run is one line on
stderr and exit 1."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from engine.core import settings

SCRIPT = settings.REPO_ROOT / "scripts" / "run_tables.py"
_spec = importlib.util.spec_from_file_location("run_tables", SCRIPT)
assert _spec and _spec.loader
run_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_tables)

ENDED = 1_795_000_000.0  # 2026-11-18


def write_run(
    folder: Path, columns: dict[str, list[float | None]], *, summary=None, spectra=None, config=None
):
    """A finished run folder: metrics.csv from ``columns`` (``step`` first; None an empty cell), and the
    summary, spectra (step → eigenvalues) and config given."""
    folder.mkdir(parents=True)
    status = {"state": "finished", "ended": ENDED, "last_step": int(columns["step"][-1])}
    (folder / "status.json").write_text(json.dumps(status), encoding="utf-8")
    names = list(columns)
    rows = zip(*columns.values(), strict=True)
    text = (
        ",".join(names)
        + "\n"
        + "".join(",".join("" if v is None else repr(v) for v in r) + "\n" for r in rows)
    )
    (folder / "metrics.csv").write_text(text, encoding="utf-8")
    (folder / "summary.json").write_text(json.dumps(summary or {}), encoding="utf-8")
    (folder / "config.json").write_text(json.dumps(config or {}), encoding="utf-8")
    if spectra:
        d = len(next(iter(spectra.values())))
        lines = ["step," + ",".join(f"lambda_{k}" for k in range(1, d + 1))]
        lines += [f"{step}," + ",".join(repr(float(v)) for v in values) for step, values in spectra.items()]
        (folder / "spectrum.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def table_rows(text: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("|")
    ]


def test_measures_table_reads_first_and_last_logged_values_and_correlations(tmp_path, capsys) -> None:
    run = write_run(
        tmp_path / "a",
        {"step": [0, 1, 2, 3], "isoscore": [0.3, None, 0.2, 0.01], "rankme": [301.25, 250.0, None, 224.0]},
        summary={
            "pearson_r": -0.833,
            "spearman_rho": -1.0,
            "rankme_pearson_r": -0.965,
            "rankme_spearman_rho": -0.99,
        },
    )
    assert (
        run_tables.main(
            ["measures", str(run), "--names", "isoscore,rankme", "--corr", "--labels", "polarity"]
        )
        == 0
    )
    rows = table_rows(capsys.readouterr().out)
    assert rows[0] == ["measure", "polarity start → end", "polarity r", "polarity ρ"]
    assert rows[2][1:] == ["0.3 → 0.01", "−0.833", "−1"]
    assert rows[3][1:] == ["301.2 → 224", "−0.965", "−0.99"]


def test_spectrum_row_against_its_definitions() -> None:
    rng = np.random.default_rng(3)
    eigenvalues = np.sort(rng.gamma(0.5, size=384))[::-1]
    cells = run_tables.spectrum_row(rng.permutation(eigenvalues))
    values = sorted(eigenvalues.tolist(), reverse=True)
    total = math.fsum(values)
    participation = total**2 / math.fsum(v * v for v in values)
    held, directions = 0.0, 0
    while held < 0.9 * total:
        held += values[directions]
        directions += 1
    expected_shares = [f"{100 * math.fsum(values[:k]) / total:.1f} %" for k in (1, 2, 3, 10)]
    assert cells[3:7] == expected_shares
    assert cells[7] == str(directions)
    assert float(cells[8]) == pytest.approx(participation, rel=5e-4)
    assert float(cells[9]) == pytest.approx(values[0] / values[199], rel=5e-3)
    assert [float(c) for c in cells[:3]] == pytest.approx(values[:3], rel=5e-3)


def test_spectrum_table_has_the_first_and_last_step_of_each_run(tmp_path, capsys) -> None:
    flat, peaked = np.full(8, 0.5), np.array([4.0, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625])
    run = write_run(tmp_path / "r", {"step": [0, 10]}, spectra={0: flat, 5: flat, 10: peaked})
    assert run_tables.main(["spectrum", str(run)]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert [r[1] for r in rows[2:]] == ["0", "10"]
    assert rows[2][8:12] == [
        "100.0 %",
        "8",
        "8",
        "—",
    ]  # 90 % needs all 8 equal directions; PR of a flat spectrum is d
    assert rows[3][5] == f"{100 * 4 / peaked.sum():.1f} %"


def test_sampled_table_is_the_gap_to_the_exact_run_over_common_steps(tmp_path, capsys) -> None:
    exact = write_run(
        tmp_path / "exact", {"step": [0, 10, 20], "silhouette": [0.0, 0.5, 0.7]}, summary={"pearson_r": -0.8}
    )
    sample = write_run(
        tmp_path / "s1000",
        {"step": [0, 10, 20, 30], "silhouette": [0.01, 0.47, 0.7, 0.9]},
        summary={"pearson_r": -0.81, "spearman_rho": -0.999},
        config={"sample_size": 1000},
    )
    assert run_tables.main(["sampled", str(exact), str(sample), "--names", "silhouette"]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert rows[0][2].startswith("1,000 samples")
    assert rows[2][1:] == ["0 → 0.7", f"0.03 ({0.04 / 3:.2g})"]  # step 30 is not in the exact run
    assert rows[3][1:] == ["−0.8 / —", "−0.81 / −0.999"]


def test_a_missing_or_unfinished_run_is_one_line_and_exit_1(tmp_path, capsys) -> None:
    running = write_run(tmp_path / "running", {"step": [0]})
    (running / "status.json").write_text(json.dumps({"state": "running"}), encoding="utf-8")
    for folder in (tmp_path / "gone", running):
        assert run_tables.main(["measures", str(folder), "--names", "isoscore"]) == 1
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and str(folder) in err


def test_a_run_only_shipped_is_read_there_and_named_as_given(tmp_path, capsys, monkeypatch) -> None:
    """A fresh clone: ``cache/runs/r`` exists only as its copy in docs/run-folders (results --ship)."""
    from engine.claims.shipped import SHIPPED

    flat = np.full(4, 0.25)
    write_run(tmp_path / SHIPPED / "cache" / "runs" / "r", {"step": [0, 10]}, spectra={0: flat, 10: flat})
    monkeypatch.chdir(tmp_path)  # python -m engine results runs the script in the repository's root
    assert run_tables.main(["spectrum", "cache/runs/r"]) == 0
    out = capsys.readouterr().out
    assert "r `cache/runs/r` (2026-11-18)" in out and "run-folders" not in out
    assert run_tables.main(["spectrum", "cache/runs/absent"]) == 1
    assert "cache/runs/absent is missing" in capsys.readouterr().err
