"""The run list survives any one damaged folder: a folder it may not read, a named pipe in place of a file,
a start time from the future, a malformed row, a link (issue 24, items 1, 2 and 9)."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from engine import runlog

REPO = Path(__file__).resolve().parents[2]


def _finished_run(root: Path, name: str) -> Path:
    writer = runlog.RunWriter(root / name, ["step", "loss"], {"kind": "probe"})
    writer.append({"step": 0, "loss": 1.0})
    writer.append({"step": 1, "loss": 0.5})
    writer.finish("finished")
    return root / name


def _forbid(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Reading anything inside ``folder`` fails with EACCES, as for a mode-000 folder read by a non-root user
    (the suite runs as root, where permissions do not bite): stat, lstat, open and os.open are refused."""
    folder = Path(folder)

    def refused(path: object) -> bool:
        try:
            candidate = Path(os.fsdecode(path))
        except TypeError:
            return False
        return folder in candidate.parents

    def guard(real):
        def wrapped(path, *args, **kwargs):
            if refused(path):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real(path, *args, **kwargs)

        return wrapped

    for module, name in ((os, "stat"), (os, "lstat"), (os, "open"), (builtins, "open"), (io, "open")):
        monkeypatch.setattr(module, name, guard(getattr(module, name)))


def test_a_folder_that_cannot_be_read_hides_no_other_run(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "runs"
    _finished_run(root, "a-good")
    _finished_run(root, "b-locked")
    _finished_run(root, "c-good")
    _forbid(monkeypatch, root / "b-locked")
    damaged: list[runlog.DamagedRun] = []
    names = sorted(info.name for info in runlog.list_runs(root, damaged))
    assert names == ["a-good", "c-good"]
    assert [d.name for d in damaged] == ["b-locked"] and "PermissionError" in damaged[0].reason


def _nobody_can_run_python(folder: Path) -> bool:
    probe = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        sys.executable,
        "-c",
        "import numpy, pandas",
    ]
    try:
        return subprocess.run(probe, cwd=folder, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_a_mode_000_folder_read_by_a_non_root_user(tmp_path: Path) -> None:
    """The real thing where the machine allows it: a non-root process lists runs beside a mode-000 one."""
    shared = Path(tempfile.mkdtemp(prefix="embedlab-perm-"))
    try:
        shared.chmod(0o755)
        if not _nobody_can_run_python(shared) or os.geteuid() != 0:
            pytest.skip(
                "no setpriv, not root, or this Python and its packages are not readable by user 65534"
            )
        root = shared / "runs"
        _finished_run(root, "good")
        _finished_run(root, "locked")
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (root / "locked").chmod(0o000)
        script = textwrap.dedent(
            f"""
            import sys; sys.path.insert(0, {str(REPO)!r})
            from engine import runlog
            damaged = []
            print([r.name for r in runlog.list_runs({str(root)!r}, damaged)], [d.name for d in damaged])
            """
        )
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c"]
        done = subprocess.run([*command, script], cwd=shared, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "['good'] ['locked']"
    finally:
        (shared / "runs" / "locked").chmod(0o755) if (shared / "runs").exists() else None
        subprocess.run(["rm", "-rf", str(shared)], check=False)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", [runlog.METRICS, runlog.CONFIG, runlog.STATUS, runlog.SPECTRUM])
def test_a_named_pipe_in_a_run_folder_never_blocks_the_list(tmp_path: Path, name: str) -> None:
    root = tmp_path / "runs"
    _finished_run(root, "good")
    pipe_run = _finished_run(root, "piped")
    (pipe_run / name).unlink(missing_ok=True)
    os.mkfifo(pipe_run / name)
    damaged: list[runlog.DamagedRun] = []
    names = [info.name for info in runlog.list_runs(root, damaged)]
    assert "good" in names
    if name in (runlog.METRICS, runlog.CONFIG):
        assert [d.name for d in damaged] == ["piped"] and "not a regular file" in damaged[0].reason
    # every reader of the run's files answers at once
    runlog.read_summary(pipe_run)
    runlog.MetricsTail(pipe_run).read_new()
    runlog.MetricsTail(pipe_run, runlog.SPECTRUM).read_new()


@pytest.mark.timeout(60)
def test_named_pipes_as_points_snapshots_and_frames_never_block(tmp_path: Path) -> None:
    run = _finished_run(tmp_path, "run")
    os.mkfifo(run / runlog.POINTS)
    (run / runlog.SNAPSHOTS).mkdir()
    os.mkfifo(run / runlog.SNAPSHOTS / "step_000000.npy")
    (run / runlog.FRAMES).mkdir()
    os.mkfifo(run / runlog.FRAMES / "step_000000.csv")
    with pytest.raises(Exception, match="not a regular file"):
        runlog.read_points(run)
    with pytest.raises(Exception, match="not a regular file"):
        runlog.load_snapshot(run / runlog.SNAPSHOTS / "step_000000.npy")
    with pytest.raises(Exception, match="not a regular file"):
        runlog.load_frame(run / runlog.FRAMES / "step_000000.csv")


def test_a_start_time_from_the_future_is_not_pinned_newest(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    future = _finished_run(root, "future")
    status = runlog.read_json(future / runlog.STATUS)
    status["started"] = 32503680000.0  # the year 3000
    runlog.write_json_atomic(future / runlog.STATUS, status)
    an_hour_ago = time.time() - 3600
    os.utime(future / runlog.STATUS, (an_hour_ago, an_hour_ago))
    _finished_run(root, "recent")
    runs = runlog.list_runs(root)
    assert [info.name for info in runs] == ["recent", "future"]
    assert runs[1].started == pytest.approx(an_hour_ago)  # read as the status file's own time


@pytest.mark.parametrize(
    "bad_line", ["1,2,3,4,5\n", "oops,0.5\n", '"unclosed,0.4\n', "\x00\xff,1\n", "2,not-a-number\n"]
)
def test_a_malformed_row_is_skipped_and_counted_not_hiding_the_run(tmp_path: Path, bad_line: str) -> None:
    root = tmp_path / "runs"
    run = _finished_run(root, "run")
    with open(run / runlog.METRICS, "a", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(bad_line)
        handle.write("3,0.25\n")
    damaged: list[runlog.DamagedRun] = []
    (info,) = runlog.list_runs(root, damaged)
    assert damaged == []
    assert info.last_step == 3 and info.bad_rows == 1
    frame = runlog.read_metrics(run)
    assert frame["step"].tolist() == [0, 1, 3] and frame.attrs["bad_rows"] == 1
    tail = runlog.MetricsTail(run)
    assert [row["step"] for row in tail.read_new()] == [0, 1, 3] and tail.bad_rows == 1
    assert tail.frame()["step"].tolist() == [0, 1, 3]


def test_damaged_folders_are_named_with_their_path_and_reason(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    _finished_run(root, "good")
    (root / "empty").mkdir()
    (root / "garbage").mkdir()
    (root / "garbage" / runlog.CONFIG).write_bytes(b"\x00\xff{")
    found = {d.name: d for d in runlog.damaged_runs(root)}
    assert sorted(found) == ["empty", "garbage"]
    assert found["garbage"].path == root / "garbage" and found["garbage"].reason
    runlog.delete_damaged(root, found["garbage"].path)
    assert not (root / "garbage").exists() and (root / "good").exists()
    with pytest.raises(ValueError, match="not a damaged run folder"):
        runlog.delete_damaged(root, root / "good")
    with pytest.raises(ValueError, match="outside"):
        runlog.delete_damaged(root, tmp_path)


def test_a_linked_run_folder_is_listed_once_and_links_out_are_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    _finished_run(root, "real")
    (root / "alias").symlink_to(root / "real", target_is_directory=True)
    outside = _finished_run(tmp_path / "elsewhere", "secret")
    (root / "out-link").symlink_to(outside, target_is_directory=True)
    damaged: list[runlog.DamagedRun] = []
    runs = runlog.list_runs(root, damaged)
    assert [info.name for info in runs] == ["real"]
    assert [d.name for d in damaged] == ["out-link"] and "outside" in damaged[0].reason


def test_the_status_json_of_a_listed_run_is_unchanged_by_listing(tmp_path: Path) -> None:
    run = _finished_run(tmp_path, "run")
    before = (run / runlog.STATUS).read_bytes()
    runlog.list_runs(tmp_path)
    assert (run / runlog.STATUS).read_bytes() == before
    assert json.loads(before)["state"] == "finished"
