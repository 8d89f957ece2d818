"""The writer's side of issue 24: a forced rerun starts from an empty folder swapped in whole (item 6), the
snapshots of a run are capped and a full disk stops them with a warning named "disk full", and a cache
folder that cannot be written is one line that says so (item 9)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pytest

from engine import runlog
from engine.core.errors import ConfigError
from engine.runlog import runner
from engine.runlog import writer as writer_module
from engine.runlog.events import Row


def _old_run(run: Path) -> None:
    old = runlog.RunWriter(run, ["step", "loss"], {"kind": "probe", "which": "old"})
    old.append({"step": 0, "loss": 9.0})
    old.save_points(["a", "b"], ["x", "y"])
    old.save_snapshot(0, np.ones((2, 3), dtype=np.float32))
    old.finish("finished", summary={"which": "old"})
    runlog.save_frame(run, 0, np.zeros((2, 2)))


def test_a_forced_rerun_starts_from_an_empty_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _old_run(run)
    new = runlog.RunWriter(run, ["step", "loss"], {"kind": "probe", "which": "new"})
    try:
        names = sorted(p.name for p in run.iterdir() if not p.name.startswith("."))
        assert names == [runlog.CONFIG, runlog.METRICS, runlog.STATUS]
        assert runlog.read_json(run / runlog.CONFIG)["which"] == "new"
        assert [p.name for p in tmp_path.iterdir()] == ["run"]  # the old run is gone, no folder left aside
    finally:
        new.finish("finished")
    assert runlog.list_snapshots(run) == [] and runlog.list_frames(run) == []


def test_a_kill_before_the_swap_leaves_the_old_run_whole(tmp_path: Path, monkeypatch) -> None:
    run = tmp_path / "run"
    _old_run(run)
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}

    def killed(*_args):
        raise KeyboardInterrupt  # SIGKILL between writing aside and swapping: no clean-up runs either

    monkeypatch.setattr(writer_module, "exchange", killed)
    monkeypatch.setattr(writer_module, "remove_tree", lambda path: None)
    with pytest.raises(KeyboardInterrupt):
        runlog.RunWriter(run, ["step", "loss"], {"kind": "probe", "which": "new"})
    after = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    assert after == before
    assert [info.name for info in runlog.list_runs(tmp_path)] == ["run"]
    assert len(list(tmp_path.iterdir())) == 2  # the new run's start, hidden aside
    monkeypatch.undo()
    again = runlog.RunWriter(run, ["step"], {"kind": "probe", "which": "again"})  # and a later run works
    again.finish("finished")
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # the aside folder left by the kill is swept


def test_a_kill_after_the_swap_leaves_the_new_run_whole(tmp_path: Path, monkeypatch) -> None:
    run = tmp_path / "run"
    _old_run(run)
    monkeypatch.setattr(writer_module, "remove_tree", lambda path: None)  # killed before the old is removed
    new = runlog.RunWriter(run, ["step", "loss"], {"kind": "probe", "which": "new"})
    new.append({"step": 0, "loss": 1.0})
    new.finish("finished")
    assert runlog.read_json(run / runlog.CONFIG)["which"] == "new"
    assert runlog.list_snapshots(run) == [] and not (run / runlog.POINTS).exists()
    assert [info.name for info in runlog.list_runs(tmp_path)] == ["run"]


def test_a_live_writer_still_refuses_a_forced_second_one(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = runlog.RunWriter(run, ["step"], {"kind": "probe"})
    first.append({"step": 0})
    with pytest.raises(ConfigError, match="another process is writing a run into this folder"):
        runlog.RunWriter(run, ["step"], {"kind": "probe"})
    first.append({"step": 1})
    first.finish("finished")
    assert runlog.read_metrics(run)["step"].tolist() == [0, 1]


def _run_rows(tmp_path: Path, monkeypatch, snapshots: int, size: tuple[int, int]) -> Path:
    def experiment(config, stop):
        for step in range(snapshots):
            yield Row(step, {"loss": 1.0}, np.ones(size, dtype=np.float32))

    made = runner.Experiment("snapshots", "t", dict, experiment, ("step", "loss"))
    runner.run_experiment(made, {}, tmp_path / "run")
    return tmp_path / "run"


def test_snapshots_stop_at_the_cap_with_a_warning(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EMBEDLAB_SNAPSHOT_CAP_MB", "1")  # a 125 x 1000 snapshot is 0.48 MB (float32)
    run = _run_rows(tmp_path, monkeypatch, 5, (125, 1000))
    assert [step for step, _ in runlog.list_snapshots(run)] == [0, 1]
    assert runlog.read_metrics(run)["step"].tolist() == [0, 1, 2, 3, 4]
    status = runlog.read_json(run / runlog.STATUS)
    summary = runlog.read_summary(run)
    assert status["state"] == "finished"
    assert any("snapshot cap" in w and "step 2" in w for w in status["warnings"])
    assert summary is not None and summary["warnings"] == status["warnings"]


def test_a_full_disk_during_a_snapshot_stops_snapshots_named_disk_full(tmp_path: Path, monkeypatch) -> None:
    real = writer_module._write_file

    def full_from_step_2(path: Path, data: bytes) -> None:
        if "step_000002" in path.name:
            path.write_bytes(data[:7])  # a partial file, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)

    monkeypatch.setattr(writer_module, "_write_file", full_from_step_2)
    run = _run_rows(tmp_path, monkeypatch, 4, (3, 2))
    assert [step for step, _ in runlog.list_snapshots(run)] == [0, 1]
    assert runlog.read_metrics(run)["step"].tolist() == [0, 1, 2, 3]
    status = json.loads((run / runlog.STATUS).read_text())
    assert status["state"] == "finished"
    assert any(w.startswith("disk full") and "step 2" in w for w in status["warnings"])
    assert not [p for p in run.rglob("*") if ".tmp" in p.name]


def test_numpy_short_write_errors_without_errno_are_named_disk_full(tmp_path: Path, monkeypatch) -> None:
    """numpy's ``tofile`` reports a short write as ``OSError('N requested and 0 written')`` with no errno."""
    writer = runlog.RunWriter(tmp_path / "run", ["step"], {"kind": "probe"})

    def short(path, data):
        raise OSError("1536 requested and 0 written")

    monkeypatch.setattr(writer_module, "_write_file", short)
    monkeypatch.setattr(writer_module, "_free_bytes", lambda folder: 0)
    assert writer.save_snapshot(0, np.zeros((3, 2))) is None
    writer.finish("finished")
    (warning,) = runlog.read_json(tmp_path / "run" / runlog.STATUS)["warnings"]
    assert warning.startswith("disk full")


def test_a_cache_folder_that_cannot_be_written_is_one_line(tmp_path: Path, monkeypatch) -> None:
    locked = tmp_path / "read-only"
    locked.mkdir()
    real_mkdir = Path.mkdir

    def refuse(self, *args, **kwargs):
        if locked in self.parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(ConfigError, match=r"^the folder .*read-only.* is not writable \(Permission denied\)"):
        runlog.RunWriter(locked / "runs" / "r", ["step"], {"kind": "probe"})
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(locked / "cache"))
    from engine.core import paths

    with pytest.raises(ConfigError, match=r"the cache folder .*read-only.* is not writable"):
        paths.runs_dir()


def test_a_read_only_cache_still_encodes_without_caching(tmp_path: Path, monkeypatch, caplog) -> None:
    from engine.core import paths
    from engine.encoders import cache

    class Tiny:
        hidden_size = 2

        def encode(self, items, batch_size=64, progress=None):
            return np.ones((len(items), 2), dtype=np.float32)

    def refused():
        raise ConfigError(f"the cache folder {tmp_path} is not writable (Read-only file system)")

    monkeypatch.setattr(paths, "embeddings_dir", refused)
    assert cache.encode_cached(Tiny(), ["a", "b"]).shape == (2, 2)
    assert "is not writable" in caplog.text


def test_an_out_folder_that_cannot_be_made_is_one_line(tmp_path: Path, monkeypatch) -> None:
    from engine.cli import prepare_out_dir

    def refuse(self, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(
        ConfigError, match=r"^--out .*: the folder .* is not writable \(Read-only file system\)"
    ):
        prepare_out_dir(str(tmp_path / "run"), force=False)
