"""A damaged, stale, shared or full run folder stays with itself: it never hides other runs, never loses
rows, never stays 'running' for ever, and never shows a traceback."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest
from waiting import wait_for

from engine import jobs, runlog
from engine.cli import main
from engine.command.exits import engine_command
from engine.core.errors import ConfigError, RunFailed
from engine.runlog import runner
from engine.runlog.events import Row

CLI_ENV = {**os.environ, "EMBEDLAB_NO_PROGRESS": "1"}


def _finished_run(root: Path, name: str, started: object = 1.0) -> Path:
    writer = runlog.RunWriter(root / name, ["step", "loss"], {"kind": "probe"})
    writer.append({"step": 0, "loss": 1.0})
    writer.finish("finished")
    status = runlog.read_json(root / name / runlog.STATUS)
    status["started"] = started
    runlog.write_json_atomic(root / name / runlog.STATUS, status)
    return root / name


@pytest.mark.parametrize("bad_started", ["yesterday", [1], {"t": 1}, True, None])
def test_one_bad_status_never_hides_the_other_runs(tmp_path: Path, bad_started: object) -> None:
    root = tmp_path / "runs"
    _finished_run(root, "good-a", 10.0)
    _finished_run(root, "bad", bad_started)
    _finished_run(root, "good-b", 20.0)
    (root / "garbage").mkdir()
    (root / "garbage" / runlog.CONFIG).write_text("{not json")
    damaged: list[runlog.DamagedRun] = []
    runs = runlog.list_runs(root, damaged)
    assert [info.name for info in runs] == ["good-b", "good-a", "bad"]  # the bad time sorts as unknown (last)
    assert [d.name for d in damaged] == ["garbage"] and "JSONDecodeError" in damaged[0].reason
    registry = jobs.JobRegistry(root, project=False, isolation="thread")
    try:
        assert {job.id for job in registry.attach_finished()} == {"good-a", "bad", "good-b"}
    finally:
        registry.shutdown()


def test_a_second_writer_of_one_folder_is_refused_and_the_first_keeps_its_rows(tmp_path: Path) -> None:
    first = runlog.RunWriter(tmp_path / "run", ["step"], {"kind": "probe"})
    first.append({"step": 0})
    with pytest.raises(ConfigError, match="another process is writing a run into this folder"):
        runlog.RunWriter(tmp_path / "run", ["step"], {"kind": "probe"})
    first.append({"step": 1})
    first.finish("finished")
    assert runlog.read_metrics(tmp_path / "run")["step"].tolist() == [0, 1]
    again = runlog.RunWriter(tmp_path / "run", ["step"], {"kind": "probe"})  # free again once finished
    again.finish("finished")


def test_two_forced_cli_runs_on_one_folder_never_interleave(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = engine_command(
        "probe", "--data", "demo", "--limit", "60", "--steps", "100000", "--out", str(out), "--force"
    )
    first = subprocess.Popen(
        command, env=CLI_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(
            lambda: len(runlog.read_metrics(out)) >= 2 or first.poll() is not None,
            240,
            "the first run's rows",
        )
        assert first.poll() is None
        second = subprocess.run(command, env=CLI_ENV, capture_output=True, text=True, timeout=240)
        assert second.returncode == 2
        assert "another process is writing a run into this folder" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=240)
    assert first.returncode == 130
    steps = runlog.read_metrics(out)["step"].tolist()
    assert steps == list(range(len(steps)))  # one writer's rows, in order, none doubled


def test_stop_reaches_a_run_written_by_another_process(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    command = engine_command(
        "probe", "--data", "demo", "--limit", "60", "--steps", "100000", "--out", str(root / "cli-run")
    )
    child = subprocess.Popen(command, env=CLI_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    registry = jobs.JobRegistry(root, project=False, isolation="thread")
    try:
        wait_for(lambda: len(runlog.read_metrics(root / "cli-run")) >= 1, 240, "the CLI run's first row")
        (job,) = registry.attach_finished()
        assert job.state == "running"
        job.stop()
        assert child.wait(timeout=240) == 130
        job.refresh_from_disk()
        assert job.state == "stopped"
    finally:
        if child.poll() is None:
            child.kill()
        registry.shutdown()


def test_a_full_disk_fails_the_run_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: from step 2 on the disk is full: the snapshot stops with a warning (a partial file
    removed), the row cannot be written, no new file can be made; the run fails, named "disk full"."""
    from engine.core import atomic
    from engine.runlog import writer

    def full_file(path, data):  # a snapshot on a full disk: a partial file, then ENOSPC
        Path(path).write_bytes(data[:7])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    def full_row(self, cells, fd=None, name=runlog.METRICS):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.run_dir / name))

    def no_new_files(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def experiment(config, stop):
        for step in range(5):
            if step == 2:
                monkeypatch.setattr(writer, "_write_file", full_file)
                monkeypatch.setattr(writer.RunWriter, "_write_line", full_row)
                monkeypatch.setattr(atomic.tempfile, "mkstemp", no_new_files)  # every whole-file write
            yield Row(step, {"loss": 1.0 / (step + 1)}, np.zeros((3, 2), dtype=np.float32))

    made = runner.Experiment("full-disk", "t", dict, experiment, ("step", "loss"))
    with pytest.raises(RunFailed, match=r"^disk full: no space left on the device writing metrics\.csv"):
        runner.run_experiment(made, {}, tmp_path / "run")
    status = json.loads((tmp_path / "run" / runlog.STATUS).read_text())
    assert status["state"] == "failed" and status["error"].startswith("disk full")
    assert [w.split(":")[0] for w in status["warnings"]] == ["disk full"]
    assert runlog.read_metrics(tmp_path / "run")["step"].tolist() == [0, 1]
    assert sorted(p.name for p in (tmp_path / "run" / runlog.SNAPSHOTS).iterdir()) == [
        "step_000000.npy",
        "step_000001.npy",
    ]
    assert not [p for p in (tmp_path / "run").rglob("*") if ".tmp" in p.name]
    assert runlog.run_state(tmp_path / "run") == "failed"


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"encoder": ["x"]}, "probe settings: encoder must be text, got ['x']"),
        ({"steps": "many"}, "probe settings: steps must be a whole number, got 'many'"),
        ({"lr": True}, "probe settings: lr must be a number, got True"),
        ({"limit": 2.5}, "probe settings: limit must be a whole number, got 2.5"),
    ],
)
def test_config_json_of_the_wrong_type_is_one_line(tmp_path: Path, capsys, values: dict, words: str) -> None:
    code = main(["probe", "--out", str(tmp_path / "run"), "--config-json", json.dumps(values)])
    assert code == 2
    assert capsys.readouterr().err == f"error: {words}\n"
