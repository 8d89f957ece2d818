"""The headless CLI: files it writes, one-line errors, exit codes, and the ``--events`` stream of the jobs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from engine import cli, runlog
from engine.runlog import events
from engine.runlog.out_dir import prepare_out_dir
from tests.headers import PROBE_HEADER

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=570
    )


def test_probe_writes_metrics_config_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = _run(
        "probe", "--data", "demo", "--limit", "60", "--steps", "5", "--metric-every", "2", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    metrics = pd.read_csv(out / "metrics.csv")
    assert metrics.columns.tolist() == PROBE_HEADER
    assert metrics["step"].tolist() == [0, 2, 4, 5]
    config = json.loads((out / "config.json").read_text())
    assert config["kind"] == "probe" and config["steps"] == 5 and config["limit"] == 60
    summary = json.loads((out / "summary.json").read_text())
    assert {"pearson_r", "spearman_rho", "final"} <= summary.keys()
    assert summary["final"]["step"] == 5


def test_events_stream_is_liveness_only_and_matches_the_run_folder(tmp_path: Path) -> None:
    """``--events``: progress, then one tick per row already on disk (saying whether a snapshot was saved),
    then the summary; nothing else on stdout. The rows themselves are read from the folder."""
    out = tmp_path / "run"
    result = _run(
        "probe",
        "--data",
        "demo",
        "--limit",
        "60",
        "--steps",
        "4",
        "--snapshot-every",
        "2",
        "--snapshot-limit",
        "20",
        "--out",
        str(out),
        "--events",
    )
    assert result.returncode == 0, result.stderr
    stream = [events.from_line(line) for line in result.stdout.splitlines()]
    assert None not in stream
    kinds = [type(event).__name__ for event in stream]
    first_tick = kinds.index("Tick")
    assert set(kinds[:first_tick]) == {"Progress"} and kinds[-1] == "Finished"
    ticks = stream[first_tick:-1]
    assert all(isinstance(tick, events.Tick) for tick in ticks)
    assert [tick.step for tick in ticks] == runlog.read_metrics(out)["step"].tolist()
    assert [tick.step for tick in ticks if tick.snapshot] == [step for step, _ in runlog.list_snapshots(out)]
    assert stream[-1].summary["state"] == "finished" and stream[-1].summary["final"]["step"] == 4


@pytest.mark.parametrize(
    "args, message",
    [
        (["--steps", "0"], "steps must be an integer"),
        (["--lr", "-1"], "learning rate must be a number in"),
        (["--data", "no/such/file.csv"], "no/such/file.csv"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = _run("probe", *args, "--out", str(tmp_path / "r"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_existing_run_is_never_overwritten_without_force(tmp_path: Path) -> None:
    writer = runlog.RunWriter(tmp_path, ["step"], {"kind": "probe"})
    writer.append({"step": 0})
    writer.finish("finished")
    with pytest.raises(cli.ConfigError, match="already holds a run"):
        prepare_out_dir(str(tmp_path), force=False)
    assert prepare_out_dir(str(tmp_path), force=True) == tmp_path


def test_a_users_own_metrics_csv_is_no_run(tmp_path: Path) -> None:
    """Issue 47: a folder holding the user's own metrics.csv was called "already holds a run"."""
    (tmp_path / "metrics.csv").write_text("step\n0\n")
    for force in (False, True):
        with pytest.raises(cli.ConfigError, match="holds no run the lab wrote"):
            prepare_out_dir(str(tmp_path), force=force)
    assert (tmp_path / "metrics.csv").read_text() == "step\n0\n"


def test_every_registered_experiment_has_a_subcommand() -> None:
    parser = cli.build_parser()
    for kind in ("probe", "simcse"):
        args = parser.parse_args([kind, "--out", "x"])
        assert args.command == kind


def test_the_labs_warnings_are_one_note_line_each_without_a_source_line(tmp_path: Path) -> None:
    """An IsoScore capped by few samples (a sample of 50 in 384 dimensions) is said once per text, as a
    ``note:`` line, not as Python's warning with its file and source line at every update."""
    done = _run(
        "probe", "--data", "demo", "--steps", "3", "--sample-size", "50", "--out", str(tmp_path / "r")
    )
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "is capped at" in line]
    assert len(notes) == 1 and notes[0].startswith("note: IsoScore of 50 samples"), done.stderr
    assert "Warning" not in done.stderr and "warnings.warn" not in done.stderr, done.stderr


def test_a_run_outside_the_labs_run_folder_says_where_it_went(
    tmp_path: Path, own_cache: Path, capsys
) -> None:
    """A relative or outside ``--out`` never shows on Compare: the CLI says where the run went and where the
    app looks; a run inside the run folder says nothing more."""
    from engine.cli import main
    from engine.core import paths

    short = ["probe", "--data", "demo", "--steps", "1", "--limit", "60"]
    assert main([*short, "--out", str(tmp_path / "x")]) == 0
    err = capsys.readouterr().err
    assert f"note: the run is in {(tmp_path / 'x').resolve()}" in err and str(paths.runs_dir()) in err
    inside = paths.runs_dir() / "y"
    assert main([*short, "--out", str(inside)]) == 0
    assert "note: the run is in" not in capsys.readouterr().err
