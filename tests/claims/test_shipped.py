"""Run folders shipped with the repository (engine.claims.shipped): ``results --ship`` copies the four files a
runs table reads of the folders its blocks name; ``results`` reads a shipped copy where ``cache/`` lacks the
folder, so a fresh clone regenerates the table; over the size budget nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.claims import folder_check, results, shipped
from engine.cli import main


def finished_run(folder: Path, sts: list[float]) -> Path:
    """A finished run folder with the files a table reads, and a snapshot no table reads."""
    (folder / "snapshots").mkdir(parents=True)
    (folder / "snapshots" / "step_0.npy").write_bytes(b"x" * 100)
    status = {"state": "finished", "ended": results.ALPHA_REQ_SINCE + 86_400, "last_step": len(sts) - 1}
    (folder / "status.json").write_text(json.dumps(status), encoding="utf-8")
    config = {"kind": "simcse", "steps": len(sts) - 1}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "summary.json").write_text(json.dumps({"sts_spearman_end": sts[-1]}), encoding="utf-8")
    rows = [f"{step},{value}" for step, value in enumerate(sts)]
    (folder / "metrics.csv").write_text("\n".join(["step,sts_spearman", *rows]) + "\n", encoding="utf-8")
    return folder


def test_a_fresh_clone_regenerates_a_runs_table_from_the_shipped_folders(tmp_path: Path, capsys) -> None:
    run = finished_run(tmp_path / "cache" / "runs" / "a", [0.77, 0.8, 0.83])
    (run / "spectrum.csv").write_text("step,lambda_1\n0,1.0\n", encoding="utf-8")  # no table reads it
    doc = tmp_path / "docs" / "r.md"
    doc.parent.mkdir()
    doc.write_text("<!-- results:runs measures=sts_spearman cache/runs/a -->\n\n<!-- /results:runs -->\n")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    table = doc.read_text()
    assert "| `cache/runs/a` | 3 | 0.77 → 0.83 |" in table
    assert main(["results", str(doc), "--root", str(tmp_path), "--ship"]) == 0
    copy = tmp_path / shipped.SHIPPED / "cache" / "runs" / "a"
    held = sorted(p.name for p in copy.iterdir())
    assert held == sorted([*shipped.FILES, shipped.MANIFEST])  # no snapshots
    shutil.rmtree(tmp_path / "cache")  # a fresh clone: no cache/
    assert main(["results", str(doc), "--root", str(tmp_path), "--check"]) == 0
    assert doc.read_text() == table
    assert "shipped 1 run folder(s)" in capsys.readouterr().out


def test_the_local_folder_wins_and_an_absolute_path_is_taken_as_it_is(tmp_path: Path) -> None:
    assert shipped.run_folder("cache/x", tmp_path) == tmp_path / "cache" / "x"  # neither: named as given
    finished_run(tmp_path / shipped.SHIPPED / "cache" / "x", [0.1, 0.2])
    assert shipped.run_folder("cache/x", tmp_path) == tmp_path / shipped.SHIPPED / "cache" / "x"
    finished_run(tmp_path / "cache" / "x", [0.1, 0.3])
    assert shipped.run_folder("cache/x", tmp_path) == tmp_path / "cache" / "x"
    assert shipped.run_folder(str(tmp_path / "y"), tmp_path) == tmp_path / "y"


def test_only_finished_folders_inside_the_repository_are_shipped(tmp_path: Path) -> None:
    finished_run(tmp_path / "cache" / "done", [0.1, 0.2])
    (tmp_path / "cache" / "going").mkdir()
    (tmp_path / "cache" / "going" / "status.json").write_text('{"state": "running"}')
    names = ["cache/done", "cache/going", "cache/absent", "../outside", str(tmp_path / "cache" / "done")]
    done, left = shipped.ship(names, tmp_path)
    assert done == ["cache/done"] and len(left) == 4
    assert all(line.split(":")[0] in names for line in left)


def test_a_ship_over_the_budget_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    finished_run(tmp_path / "cache" / "big", [0.1] * 50)
    monkeypatch.setattr(shipped, "BUDGET", 100)
    with pytest.raises(shipped.ConfigError, match="over 100"):
        shipped.ship(["cache/big"], tmp_path)
    assert not (tmp_path / shipped.SHIPPED).exists()


@given(st.lists(st.text(alphabet="ab/=,.c -", min_size=1, max_size=12), max_size=6))
def test_a_runs_block_names_its_folders_and_nothing_else(words: list[str]) -> None:
    words = [w.strip() for w in words if w.strip() and " " not in w.strip()]
    args = " ".join(["measures=a,b", *words, "corr"])
    assert shipped.runs_named(args) == [w for w in words if not w.startswith("measures=") and w != "corr"]


def test_a_script_blocks_run_folders_ship_with_their_spectrum_and_regenerate(tmp_path: Path) -> None:
    """A ``results:script`` block (scripts/run_tables.py spectrum RUN) on a fresh clone: its run folder's
    spectrum.csv is shipped with the four files and the script reads the copy, so --check finds nothing."""
    run = finished_run(tmp_path / "cache" / "runs" / "s", [0.1, 0.2])
    (run / "spectrum.csv").write_text("step,lambda_1,lambda_2\n0,2.0,1.0\n1,3.0,0.5\n", encoding="utf-8")
    (tmp_path / "scripts").mkdir()
    shutil.copy(Path(__file__).resolve().parents[2] / "scripts" / "run_tables.py", tmp_path / "scripts")
    doc = tmp_path / "docs" / "r.md"
    doc.parent.mkdir()
    marker = "<!-- results:script scripts/run_tables.py spectrum cache/runs/s --labels S -->"
    doc.write_text(f"{marker}\n\n<!-- /results:script -->\n", encoding="utf-8")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    table = doc.read_text(encoding="utf-8")
    assert "| S | 1 | 3 |" in table and "S `cache/runs/s`" in table
    assert main(["results", str(doc), "--root", str(tmp_path), "--ship"]) == 0
    copy = tmp_path / shipped.SHIPPED / "cache" / "runs" / "s"
    held = sorted(p.name for p in copy.iterdir())
    assert held == sorted([*shipped.FILES, shipped.SPECTRUM, shipped.MANIFEST])
    shutil.rmtree(tmp_path / "cache")
    assert main(["results", str(doc), "--root", str(tmp_path), "--check"]) == 0
    assert doc.read_text(encoding="utf-8") == table


@given(st.lists(st.sampled_from(["cache/a", "cache", "docs/x", "/cache/b", "--labels", "x,y", "cache/r/s"])))
def test_a_script_block_names_its_words_under_cache(words: list[str]) -> None:
    args = " ".join(["scripts/run_tables.py", "measures", *words])
    assert shipped.script_runs(args) == [w for w in words if w in ("cache/a", "cache/r/s")]
    assert shipped.folders_of("claims", args) == []
    assert shipped.spectra_of("script", args) == []  # a measures table reads no spectrum
    spectrum = args.replace(" measures", " spectrum")
    assert shipped.spectra_of("script", spectrum) == shipped.script_runs(spectrum)
    assert shipped.spectra_of("runs", spectrum) == []


def test_a_fresh_clone_regenerates_a_claims_table_from_its_shipped_groups(tmp_path: Path, capsys) -> None:
    """Issue 56: a claims table's groups ship (group files and their members' run folders), and a fresh clone
    writes the same table from the copies, naming its runs as the marker does."""
    flags = "--short --setups demo --seeds 1 --out cache/claims-x"
    assert main(["claims", *flags.split()[:-1], str(tmp_path / "cache" / "claims-x"), "--markdown"]) == 0
    doc = tmp_path / "docs" / "r.md"
    doc.parent.mkdir()
    doc.write_text(f"<!-- results:claims {flags} -->\n<!-- /results:claims -->\n", encoding="utf-8")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    table = doc.read_text(encoding="utf-8")
    assert "runs in `cache/claims-x`, made " in table
    assert main(["results", str(doc), "--root", str(tmp_path), "--ship"]) == 0
    group = tmp_path / shipped.SHIPPED / "cache" / "claims-x" / "claims-demo-short"
    assert {p.name for p in group.iterdir()} >= {"group.json", "claims.json", "runs"}
    assert sorted(p.name for p in (group / "runs" / "seed-0").iterdir()) == sorted(
        [*shipped.FILES, folder_check.MANIFEST]
    )
    shutil.rmtree(tmp_path / "cache")  # a fresh clone: no cache/
    capsys.readouterr()
    assert main(["results", str(doc), "--root", str(tmp_path), "--check"]) == 0, capsys.readouterr().err
    assert doc.read_text(encoding="utf-8") == table


def test_a_claims_table_without_a_folder_under_cache_does_not_ship(tmp_path: Path) -> None:
    done, left = shipped.ship_claims("--short --setups demo --seeds 1 --out /elsewhere/claims", tmp_path)
    assert (
        done == []
        and len(left) == 1
        and left[0].endswith("its --out is not a folder under cache/ (not shipped)")
    )
    done, left = shipped.ship_claims("--short --setups demo --seeds 1 --out cache/none", tmp_path)
    assert done == [] and len(left) == 1 and "claims-demo-short" in left[0] and "group.json" in left[0]
    assert not (tmp_path / shipped.SHIPPED).exists()
