"""Stopping another writer's run (engine/runlog/liveness.request_stop): SIGTERM through a pidfd taken before
the process's identity (its start time) is checked, so a reused PID is never signalled."""

from __future__ import annotations

import json
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
