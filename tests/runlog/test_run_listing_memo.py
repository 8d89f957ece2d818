"""Listing the runs again reads only what changed (issue 24, item 8): a file unchanged since the last listing
(same inode, mode, size and times) is not read again; a changed one is; a running run's writer is still
checked every time; the job registry re-reads only the attached runs whose state changed. Counts, never
times."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from engine import runlog
from engine.jobs import Job, JobRegistry
from engine.runlog import listing


def _finished_run(root: Path, name: str, rows: int = 2) -> Path:
    writer = runlog.RunWriter(root / name, ["step", "loss"], {"kind": "probe"})
    for step in range(rows):
        writer.append({"step": step, "loss": 1.0 / (step + 1)})
    writer.finish("finished")
    return root / name


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """The files the run list reads, counted by name."""
    counted: Counter = Counter()
    read_json, read_metrics = listing.read_json, listing.read_metrics

    def counting_json(path: Path) -> dict:
        counted[Path(path).name] += 1
        return read_json(path)

    def counting_metrics(run_dir: Path):
        counted[runlog.METRICS] += 1
        return read_metrics(run_dir)

    monkeypatch.setattr(listing, "read_json", counting_json)
    monkeypatch.setattr(listing, "read_metrics", counting_metrics)
    monkeypatch.setattr(listing, "SETTLED_NS", -(10**15))  # the files just written count as settled
    return counted


def test_a_file_changed_a_moment_ago_is_read_at_every_listing(tmp_path: Path, reads: Counter) -> None:
    _finished_run(tmp_path, "probe-0")
    listing.SETTLED_NS = 10**15  # (restored by the fixture) as if every file had changed a moment ago
    runlog.list_runs(tmp_path)
    runlog.list_runs(tmp_path)
    assert reads == {runlog.CONFIG: 2, runlog.STATUS: 2, runlog.METRICS: 2}


def test_a_second_listing_with_nothing_changed_reads_no_file(tmp_path: Path, reads: Counter) -> None:
    for i in range(3):
        _finished_run(tmp_path, f"probe-{i}")
    first = runlog.list_runs(tmp_path)
    assert reads == {runlog.CONFIG: 3, runlog.STATUS: 3, runlog.METRICS: 3}
    reads.clear()
    again = runlog.list_runs(tmp_path)
    assert reads == {} and again == first


def test_a_changed_file_is_read_again_and_only_it(tmp_path: Path, reads: Counter) -> None:
    runs = [_finished_run(tmp_path, f"probe-{i}") for i in range(3)]
    runlog.list_runs(tmp_path)
    reads.clear()
    with (runs[1] / runlog.METRICS).open("a") as handle:  # a new row
        handle.write("2,0.25\n")
    status = runlog.read_json(runs[2] / runlog.STATUS)
    runlog.write_json_atomic(runs[2] / runlog.STATUS, {**status, "state": "stopped"})
    found = {info.name: info for info in runlog.list_runs(tmp_path)}
    assert reads == {runlog.METRICS: 1, runlog.STATUS: 1}
    assert found["probe-1"].last_step == 2 and found["probe-2"].state == "stopped"
    reads.clear()
    os.chmod(runs[0] / runlog.CONFIG, 0o600)  # a change of mode is a change: read again
    runlog.list_runs(tmp_path)
    assert reads == {runlog.CONFIG: 1}


def test_what_a_listing_returns_is_a_copy(tmp_path: Path) -> None:
    _finished_run(tmp_path, "probe-0")
    runlog.list_runs(tmp_path)[0].config["kind"] = "changed by a caller"
    assert runlog.list_runs(tmp_path)[0].config["kind"] == "probe"


def test_a_running_runs_writer_is_checked_at_every_listing(tmp_path: Path, reads: Counter) -> None:
    writer = runlog.RunWriter(tmp_path / "probe-live", ["step", "loss"], {"kind": "probe"})
    writer.append({"step": 0, "loss": 1.0})
    assert [info.state for info in runlog.list_runs(tmp_path)] == ["running"]
    writer._lock.release()  # its process ended without a word (a kill): the lock is free
    reads.clear()
    assert [info.state for info in runlog.list_runs(tmp_path)] == ["interrupted"]
    assert reads == {}  # no file changed: the state comes from the writer's lock alone


def test_attach_finished_rereads_only_the_runs_whose_state_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        _finished_run(tmp_path, f"probe-{i}")
    reg = JobRegistry(tmp_path, project=False, isolation="thread", warm=False)
    try:
        assert len(reg.attach_finished()) == 3
        refreshed: list[str] = []
        refresh = Job.refresh_from_disk

        def counting(job: Job) -> None:
            refreshed.append(job.id)
            refresh(job)

        monkeypatch.setattr(Job, "refresh_from_disk", counting)
        reg.attach_finished()
        assert refreshed == []
        status = runlog.read_json(tmp_path / "probe-1" / runlog.STATUS)
        runlog.write_json_atomic(
            tmp_path / "probe-1" / runlog.STATUS, {**status, "state": "failed", "error": "boom"}
        )
        reg.attach_finished()
        assert refreshed == ["probe-1"]
        assert reg.get("probe-1").state == "failed" and reg.get("probe-1").error == "boom"
    finally:
        reg.shutdown()
