"""Stopping another writer's run (engine/runlog/liveness.request_stop): SIGTERM through a pidfd taken before
the process's identity (its start time) is checked, so a reused PID is never signalled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.runlog import liveness


@pytest.fixture
def sleeper():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc
    proc.kill()
    proc.wait()


def status(run_dir: Path, pid: int, start: str | None) -> Path:
    run_dir.mkdir()
    (run_dir / "status.json").write_text(json.dumps({"state": "running", "pid": pid, "proc_start": start}))
    return run_dir


def test_the_writer_checked_by_its_start_time_gets_sigterm(tmp_path, sleeper, monkeypatch) -> None:
    monkeypatch.setattr(liveness, "writer_alive", lambda run_dir, found: True)
    run_dir = status(tmp_path / "run", sleeper.pid, liveness.process_start(sleeper.pid))
    assert liveness.request_stop(run_dir)
    assert sleeper.wait(timeout=30) == -signal.SIGTERM


def test_a_pid_whose_start_time_differs_is_not_signalled(tmp_path, sleeper, monkeypatch) -> None:
    monkeypatch.setattr(liveness, "writer_alive", lambda run_dir, found: True)
    run_dir = status(tmp_path / "run", sleeper.pid, "another process's start")
    assert not liveness.request_stop(run_dir)
    assert sleeper.poll() is None  # still running: the PID names another process than the writer's


def test_pid_exists_asks_without_a_signal_and_a_reaped_child_is_gone(tmp_path: Path, monkeypatch) -> None:
    """engine/runlog/liveness.pid_exists (the feed's sweep and pid_alive use it): no os.kill, a pidfd."""

    def no_signal(*args):
        raise AssertionError("os.kill called")

    child = subprocess.Popen(["sleep", "30"])
    try:
        with monkeypatch.context() as patched:
            patched.setattr(os, "kill", no_signal)
            assert liveness.pid_exists(os.getpid()) and liveness.pid_exists(child.pid)
    finally:
        child.kill()  # its own handle
        child.wait()
    monkeypatch.setattr(os, "kill", no_signal)
    assert not liveness.pid_exists(child.pid)  # reaped (not reused within the test: PIDs go up first)
    assert liveness.pid_alive(os.getpid(), liveness.process_start(os.getpid()))


def test_the_feed_sweep_removes_only_the_folders_of_servers_that_ended(tmp_path: Path) -> None:
    from ui import feed

    ended = subprocess.Popen(["true"])
    ended.wait()
    for pid in (os.getpid(), ended.pid):
        (tmp_path / str(pid)).mkdir()
    feed.sweep(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [str(os.getpid())]
