"""The run folder: rows on disk as written, atomic JSON, states, snapshots, frames, and the metrics tail."""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine import runlog
from engine.core.errors import DataError


def _writer(tmp_path: Path) -> runlog.RunWriter:
    return runlog.RunWriter(tmp_path / "run", ["step", "loss", "note"], {"kind": "probe", "steps": 3})


def test_rows_are_on_disk_as_soon_as_appended(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    writer.append({"step": 0, "loss": 1.5, "note": 'a,b "quoted"'})
    frame = runlog.read_metrics(writer.run_dir)  # read before finish: nothing buffered
    assert frame.to_dict("records") == [{"step": 0, "loss": 1.5, "note": 'a,b "quoted"'}]
    writer.append({"step": 1, "loss": float("nan")})
    frame = runlog.read_metrics(writer.run_dir)
    assert len(frame) == 2 and np.isnan(frame["loss"].iloc[1])


def test_status_moves_from_running_to_final(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    assert runlog.run_state(writer.run_dir) == "running"
    writer.append({"step": 0, "loss": 1.0})
    writer.finish("finished", summary={"final": 1})
    info = runlog.load_run_info(writer.run_dir)
    assert (info.state, info.last_step, info.kind) == ("finished", 0, "probe")
    assert runlog.read_json(writer.run_dir / "summary.json") == {"final": 1}


def test_torn_last_line_is_dropped(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    writer.append({"step": 0, "loss": 1.0})
    with open(writer.run_dir / "metrics.csv", "ab") as handle:
        handle.write(b"1,0.9")  # a kill in the middle of a row
    assert runlog.read_metrics(writer.run_dir)["step"].tolist() == [0]


def test_dead_writer_reads_as_interrupted(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    assert runlog.run_state(writer.run_dir) == "running"  # its lock is held
    writer._lock.release()  # what the kernel does when the writing process dies
    assert runlog.run_state(writer.run_dir) == "interrupted"


@pytest.mark.parametrize("pid", [2**22 + 12345, 1, "12", None])
def test_without_a_lock_a_dead_or_foreign_pid_reads_as_interrupted(tmp_path: Path, pid) -> None:
    """A folder with no lock file (written elsewhere, or by hand): the pid must be alive *and* have started
    when the status says; pid 1 lives but is not the writer."""
    writer = _writer(tmp_path)
    writer._lock.release()
    (writer.run_dir / ".writer.lock").unlink()
    status = runlog.read_json(writer.run_dir / "status.json")
    status.update(pid=pid, proc_start="12345")
    runlog.write_json_atomic(writer.run_dir / "status.json", status)
    assert runlog.run_state(writer.run_dir) == "interrupted"


def test_list_runs_skips_corrupt_and_foreign_folders(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "runs"
    good = runlog.RunWriter(root / "good", ["step"], {"kind": "probe"})
    good.finish("finished")
    (root / "foreign").mkdir()
    (root / "foreign" / "notes.txt").write_text("hello")
    (root / "corrupt").mkdir()
    (root / "corrupt" / "config.json").write_text("{not json")
    (root / "stray-file.csv").write_text("x")
    names = [info.name for info in runlog.list_runs(root)]
    assert names == ["good"]
    assert "corrupt" in caplog.text and "foreign" in caplog.text


def test_snapshots_round_trip_without_pickle(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    writer.save_points(["a", "b"], ["x", "y"])
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    writer.save_snapshot(10, array)
    (writer.run_dir / "snapshots" / "step_bad.npy").write_bytes(b"junk")
    [(step, path)] = runlog.list_snapshots(writer.run_dir)
    assert step == 10
    np.testing.assert_array_equal(runlog.load_snapshot(path), array)
    assert runlog.read_points(writer.run_dir)["text"].tolist() == ["a", "b"]


def test_json_writes_are_atomic_and_clean(tmp_path: Path) -> None:
    runlog.write_json_atomic(tmp_path / "a.json", {"x": float("inf"), "p": tmp_path})
    assert json.loads((tmp_path / "a.json").read_text()) == {"x": None, "p": str(tmp_path)}
    assert os.listdir(tmp_path) == ["a.json"]


def test_metrics_tail_reads_only_whole_new_lines_by_offset(tmp_path: Path) -> None:
    tail = runlog.MetricsTail(tmp_path / "run")
    assert tail.read_new() == [] and tail.columns is None  # no file yet
    writer = _writer(tmp_path)
    assert tail.read_new() == [] and tail.columns == ["step", "loss", "note"]  # the header alone
    writer.append({"step": 0, "loss": 1.5, "note": "a,b"})
    writer.append({"step": 1, "loss": float("nan")})
    assert tail.read_new() == [
        {"step": 0, "loss": 1.5, "note": "a,b"},
        {"step": 1, "loss": None, "note": None},
    ]
    offset = tail.offset
    assert tail.read_new() == [] and tail.offset == offset  # nothing new: nothing read
    with open(writer.run_dir / "metrics.csv", "ab") as handle:
        handle.write(b"2,0.")  # a row being written (or torn by a kill)
    assert tail.read_new() == [] and tail.offset == offset
    with open(writer.run_dir / "metrics.csv", "ab") as handle:
        handle.write(b"5,x\n3,0.25,")
    assert tail.read_new() == [{"step": 2, "loss": 0.5, "note": "x"}]
    assert tail.offset == offset + len(b"2,0.5,x\n")
    assert [row["step"] for row in tail.rows] == [0, 1, 2]


def test_metrics_tail_frame_is_what_read_metrics_reads(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    tail = runlog.MetricsTail(writer.run_dir)
    for step in range(4):
        writer.append({"step": step, "loss": 1 / (step + 1), "note": "n" if step % 2 else None})
        tail.read_new()
        pd.testing.assert_frame_equal(tail.frame(), runlog.read_metrics(writer.run_dir))


def test_metrics_tail_starts_again_when_the_file_is_written_anew(tmp_path: Path) -> None:
    _writer(tmp_path).append({"step": 0, "loss": 1.0})
    tail = runlog.MetricsTail(tmp_path / "run")
    assert len(tail.read_new()) == 1
    again = runlog.RunWriter(tmp_path / "run", ["step", "loss"], {"kind": "probe"})  # --force: truncated
    assert tail.read_new() == [] and tail.rows == [] and tail.restarts == 1
    again.append({"step": 0, "loss": 2.0})
    assert tail.read_new() == [{"step": 0, "loss": 2.0}] and tail.columns == ["step", "loss"]


def test_frames_round_trip_atomically(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert runlog.list_frames(run_dir) == []
    coords = np.array([[0.5, -1.25], [3.0, 4.0]], dtype=np.float32)
    path = runlog.save_frame(run_dir, 7, coords)
    assert path == runlog.frame_path(run_dir, 7) == run_dir / "frames" / "step_000007.csv"
    assert path.read_text().splitlines()[0] == "x,y"
    runlog.save_frame(run_dir, 12, coords * 2)
    (run_dir / "frames" / "step_bad.csv").write_text("x,y\n")
    assert [step for step, _ in runlog.list_frames(run_dir)] == [7, 12]
    np.testing.assert_array_equal(runlog.load_frame(path), coords)
    assert sorted(p.name for p in (run_dir / "frames").iterdir()) == [
        "step_000007.csv",
        "step_000012.csv",
        "step_bad.csv",
    ]  # no temporary file left
    (run_dir / "frames" / "step_000013.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a frame"):
        runlog.load_frame(run_dir / "frames" / "step_000013.csv")


def test_spectra_are_appended_whole_and_read_back(tmp_path: Path) -> None:
    """spectrum.csv: header ``step,lambda_1..lambda_d`` with the first spectrum, one row per spectrum, on
    disk as soon as appended; a torn last line is dropped; every spectrum of a run has one length."""
    writer = _writer(tmp_path)
    path = writer.run_dir / "spectrum.csv"
    assert not path.exists() and len(runlog.read_spectrum(writer.run_dir)) == 0
    writer.append_spectrum(0, np.array([3.0, 2.0, 0.5]))
    writer.append_spectrum(10, np.array([4.25, 1.0, float("nan")]))
    assert path.read_text().splitlines() == ["step,lambda_1,lambda_2,lambda_3", "0,3,2,0.5", "10,4.25,1,"]
    spectra = runlog.read_spectrum(writer.run_dir)  # before finish: nothing buffered
    assert spectra.steps.tolist() == [0, 10] and spectra.eigenvalues.shape == (2, 3)
    np.testing.assert_array_equal(spectra.at(0), [3.0, 2.0, 0.5])
    assert np.isnan(spectra.at(10)[2]) and spectra.at(5) is None
    with pytest.raises(ValueError, match="3"):
        writer.append_spectrum(20, np.ones(4))
    with open(path, "ab") as handle:
        handle.write(b"20,1.0,0.")  # a kill in the middle of a row
    assert runlog.read_spectrum(writer.run_dir).steps.tolist() == [0, 10]
    writer.finish("finished")


def test_a_new_writer_removes_an_earlier_spectrum(tmp_path: Path) -> None:
    first = _writer(tmp_path)
    first.append_spectrum(0, np.ones(3))
    first.finish("finished")
    again = _writer(tmp_path)  # --force: a run without spectra must not show the earlier run's
    assert not (again.run_dir / "spectrum.csv").exists() and len(runlog.read_spectrum(again.run_dir)) == 0
    again.finish("finished")


def test_a_damaged_spectrum_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "spectrum.csv").write_text("step,lambda_1\nzero,1.0\n")
    with pytest.raises(DataError, match="run/spectrum.csv is damaged"):
        runlog.read_spectrum(tmp_path / "run")


def test_spectrum_tail_follows_by_offset_and_starts_again(tmp_path: Path) -> None:
    tail = runlog.SpectrumTail(tmp_path / "run")
    assert tail.read_new() == [] and len(tail.spectra()) == 0  # no file yet
    writer = _writer(tmp_path)
    writer.append_spectrum(0, np.array([2.0, 1.0]))
    [(step, values)] = tail.read_new()
    assert step == 0 and values.tolist() == [2.0, 1.0] and tail.columns == ["step", "lambda_1", "lambda_2"]
    with open(writer.run_dir / "spectrum.csv", "ab") as handle:
        handle.write(b"5,1.5")  # a row being written
    assert tail.read_new() == []
    with open(writer.run_dir / "spectrum.csv", "ab") as handle:
        handle.write(b",0.25\n")
    assert [(s, v.tolist()) for s, v in tail.read_new()] == [(5, [1.5, 0.25])]
    spectra = tail.spectra()
    assert spectra.steps.tolist() == [0, 5]
    np.testing.assert_array_equal(spectra.eigenvalues, runlog.read_spectrum(writer.run_dir).eigenvalues)
    writer.finish("finished")
    again = _writer(tmp_path)  # --force: written anew
    again.append_spectrum(0, np.array([9.0, 8.0]))
    assert [(s, v.tolist()) for s, v in tail.read_new()] == [(0, [9.0, 8.0])] and tail.restarts == 1
    again.finish("finished")


# ---------------------------------------------------------------- issue 37, item 12: no stale .writer.lock
def test_a_run_that_ended_leaves_no_lock_file_and_a_killed_one_a_free_lock(tmp_path: Path) -> None:
    writer = _writer(tmp_path)
    assert (writer.run_dir / ".writer.lock").is_file()
    writer.finish("stopped")  # Ctrl-C ends a run this way (engine.runlog.runner.run_experiment)
    assert not (writer.run_dir / ".writer.lock").exists()
    forced = runlog.RunWriter(writer.run_dir, ["step"], {"kind": "probe"})  # a --force rerun, swapped in
    assert runlog.run_state(forced.run_dir) == "running"
    forced.finish("finished")
    assert sorted(p.name for p in tmp_path.iterdir()) == [writer.run_dir.name]  # nothing left aside
    assert not (writer.run_dir / ".writer.lock").exists()


def test_ctrl_c_in_a_run_leaves_it_stopped_with_no_lock_file(tmp_path: Path) -> None:
    from engine.experiments import EXPERIMENTS
    from engine.runlog.events import Row
    from engine.runlog.runner import run_experiment

    def interrupt(event: object) -> None:
        if isinstance(event, Row):
            raise KeyboardInterrupt

    config = EXPERIMENTS["probe"].make_config(data="demo", limit=40, steps=3, geometry_every=0)
    with pytest.raises(KeyboardInterrupt):
        run_experiment("probe", config, tmp_path / "run", on_event=interrupt)
    assert runlog.run_state(tmp_path / "run") == "stopped"
    assert not (tmp_path / "run" / ".writer.lock").exists()


def test_a_lock_let_go_with_its_file_is_taken_by_one_process_at_a_time(tmp_path: Path) -> None:
    first, second, third = (runlog.WriterLock(tmp_path) for _ in range(3))
    assert first.acquire() and not second.acquire()
    first.release(remove=True)
    assert not (tmp_path / ".writer.lock").exists()
    assert second.acquire() and not third.acquire()
    second.release(remove=True)


def test_an_ended_run_has_no_live_writer_even_while_its_writer_process_lives(tmp_path: Path) -> None:
    """The writer removes its lock file as it ends; the process that wrote the run (a sweep, the CLI, this
    test) lives on: the run must still read as ended, or Compare would never offer to delete it."""
    from engine import runlog

    writer = runlog.RunWriter(tmp_path / "run", ["step", "loss"], {"kind": "probe"})
    writer.append({"step": 0, "loss": 1.0})
    assert runlog.writer_alive(tmp_path / "run", runlog.read_json(tmp_path / "run" / runlog.STATUS))
    writer.finish("finished")
    status = runlog.read_json(tmp_path / "run" / runlog.STATUS)
    assert status["state"] == "finished" and not runlog.writer_alive(tmp_path / "run", status)
