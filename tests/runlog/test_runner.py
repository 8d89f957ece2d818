"""The runner: an experiment's events into a run folder (rows, snapshots, points, summary, final state)."""

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine import runlog
from engine.core.errors import ConfigError, RunFailed
from engine.runlog import runner
from engine.runlog.events import Points, Progress, Row
from tests.fake_kinds import register


@dataclass
class FakeConfig:
    steps: int = 5
    fail_at: int | None = None
    error: str = "config"


def fake_generator(config: FakeConfig, stop: threading.Event):
    yield Progress("warming", 0.5)
    yield Points(["a", "b"], ["x", "y"])
    for step in range(config.steps):
        if config.fail_at == step:
            if config.error == "config":
                raise ConfigError("bad setting at step 2")
            raise MemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        yield Row(step, {"loss": 1.0 / (step + 1)}, np.full((2, 2), step, dtype=np.float32))
        if stop.is_set():
            return


@pytest.fixture
def fake_experiment(monkeypatch: pytest.MonkeyPatch) -> str:
    return register(monkeypatch, "fake", __name__, ("step", "loss"))


def test_run_writes_every_row_snapshot_and_summary(tmp_path: Path, fake_experiment: str) -> None:
    events = []
    summary = runner.run_experiment(fake_experiment, FakeConfig(), tmp_path / "r", on_event=events.append)
    assert summary["state"] == "finished" and summary["final"]["step"] == 4
    assert runlog.read_metrics(tmp_path / "r")["step"].tolist() == [0, 1, 2, 3, 4]
    assert [s for s, _ in runlog.list_snapshots(tmp_path / "r")] == [0, 1, 2, 3, 4]
    assert runlog.load_run_info(tmp_path / "r").state == "finished"
    assert events[0] == Progress("warming", 0.5)
    assert [type(event).__name__ for event in events] == ["Progress", "Points"] + ["Row"] * 5
    assert runlog.read_points(tmp_path / "r")["text"].tolist() == ["a", "b"]


def test_every_event_is_on_disk_before_it_is_passed_on(tmp_path: Path, fake_experiment: str) -> None:
    """A reader of the run folder never sees an event before its data: the jobs rely on it."""
    seen = []

    def check(event) -> None:
        if isinstance(event, Points):
            seen.append(runlog.read_points(tmp_path / "r")["text"].tolist() == event.texts)
        elif isinstance(event, Row):
            on_disk = runlog.read_metrics(tmp_path / "r")["step"].tolist()
            snapshot = runlog.load_snapshot(runlog.snapshot_path(tmp_path / "r", event.step))
            seen.append(on_disk[-1] == event.step and np.array_equal(snapshot, event.snapshot))

    runner.run_experiment(fake_experiment, FakeConfig(steps=3), tmp_path / "r", on_event=check)
    assert seen == [True] * 4


def test_stop_ends_the_run_as_stopped(tmp_path: Path, fake_experiment: str) -> None:
    stop = threading.Event()

    def stop_after_two(event) -> None:
        if isinstance(event, Row) and event.step == 1:
            stop.set()

    summary = runner.run_experiment(
        fake_experiment, FakeConfig(steps=100), tmp_path / "r", stop, stop_after_two
    )
    assert summary["state"] == "stopped"
    assert runlog.read_metrics(tmp_path / "r")["step"].tolist() == [0, 1]


@pytest.mark.parametrize(
    "error, message", [("config", "bad setting at step 2"), ("oom", "MemoryError: CUDA out")]
)
def test_failures_are_recorded_with_one_line_and_keep_rows(
    tmp_path: Path, fake_experiment: str, error: str, message: str
) -> None:
    with pytest.raises((ConfigError, RunFailed)) as raised:
        runner.run_experiment(fake_experiment, FakeConfig(fail_at=2, error=error), tmp_path / "r")
    info = runlog.load_run_info(tmp_path / "r")
    assert info.state == "failed" and info.error.startswith(message) and "\n" not in info.error
    assert str(raised.value) == info.error
    assert runlog.read_metrics(tmp_path / "r")["step"].tolist() == [0, 1]
    log = tmp_path / "r" / "error.log"
    if error == "oom":  # an unexpected error: its traceback is in the run folder, named in the one line
        assert info.error.endswith(f"(details in {log})")
        assert "Traceback (most recent call last)" in log.read_text() and "MemoryError" in log.read_text()
    else:  # the user's own error needs no traceback
        assert not log.exists()
