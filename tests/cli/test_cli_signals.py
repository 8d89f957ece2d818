"""Signals and folders of the command line (issue 37, item 12): Ctrl-C stops a run started with SIGINT
ignored (a script's background job), ``lessons check`` ends on SIGTERM with a line saying so, and a run that
failed in its set-up leaves a folder that the next run simply replaces."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from waiting import wait_for

from engine import cli, runlog
from engine.command import signals
from engine.command.exits import engine_command
from engine.lessons import check as lessons_check

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
LONG_PROBE = ["probe", "--data", "demo", "--limit", "40", "--steps", "100000", "--geometry-every", "0"]


def _wait_for(condition, child: subprocess.Popen, seconds: float = 120) -> None:
    def ready() -> bool:
        assert child.poll() is None, child.communicate()  # the child must still be running meanwhile
        return bool(condition())

    wait_for(ready, seconds, "the child's state", interval=0.1)


@pytest.fixture
def restored_signals():
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_sigint_ignored_at_start_is_handled_again(restored_signals) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signals.stop_on_sigterm(threading.Event())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def engine_child(*args: str, **options) -> subprocess.Popen:
    """``python -m engine ARGS`` in a child process of this checkout, its output read as text."""
    return subprocess.Popen(
        engine_command(*args),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


def test_ctrl_c_stops_a_background_run_of_a_script(tmp_path: Path) -> None:
    out = tmp_path / "run"
    child = engine_child(
        *LONG_PROBE,
        "--threads",
        "1",
        "--out",
        str(out),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # what `cmd &` in a script does
    )
    try:
        _wait_for(
            lambda: len(runlog.read_metrics(out)) > 1 if (out / "metrics.csv").is_file() else False, child
        )
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert runlog.run_state(out) == "stopped" and not (out / ".writer.lock").exists()


def test_sigterm_to_a_command_of_several_runs_is_a_line_and_143(restored_signals, capsys) -> None:
    @signals.reports_stop("demo", "what was done is kept")
    def command() -> int:
        os.kill(os.getpid(), signal.SIGTERM)  # raised as Terminated, a KeyboardInterrupt, in this thread
        time.sleep(5)
        return 0

    assert command() == 143
    assert capsys.readouterr().err == "demo: stopped by SIGTERM; what was done is kept\n"
    assert lessons_check.run_cli.__wrapped__  # the lessons check is such a command


def test_lessons_check_ends_on_sigterm_with_a_line(tmp_path: Path) -> None:
    child = engine_child("lessons", "check", "--short", "--out", str(tmp_path / "check"))
    try:
        _wait_for(lambda: any(tmp_path.glob("check/*/*/status.json")), child)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 143, err
    assert err.strip().splitlines()[-1] == (
        "lessons check: stopped by SIGTERM; the runs that finished are kept; --reuse judges them again "
        "without rerunning"
    )
    started = list(tmp_path.glob("check/*/*/status.json"))  # one per worker at most (runs side by side)
    assert started and all(runlog.run_state(status.parent) in ("stopped", "finished") for status in started)


def test_a_run_that_failed_in_its_set_up_is_replaced_by_the_next(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    args = [
        "probe",
        "--data",
        "snli",
        "--data-dir",
        str(tmp_path / "none"),
        "--steps",
        "2",
        "--out",
        str(out),
    ]
    assert cli.main(args) == 2
    first = capsys.readouterr().err.strip().splitlines()[-1]
    assert first.startswith("error: snli: not found") and runlog.run_state(out) == "failed"
    assert cli.main(args) == 2  # the same error again, not "already holds a run … pass --force"
    assert capsys.readouterr().err.strip().splitlines()[-1] == first
    assert cli.main(["probe", "--data", "demo", "--limit", "40", "--steps", "1", "--out", str(out)]) == 0
    assert runlog.run_state(out) == "finished"
    capsys.readouterr()
    assert cli.main(["probe", "--data", "demo", "--steps", "1", "--out", str(out)]) == 2  # a real run stays
    assert "already holds a run" in capsys.readouterr().err
