"""A run's pace read from its rows (engine.jobs.rows.RunRows) and the time left it gives a job: the formula on
a clock the test sets, so nothing depends on how fast this machine runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from clocks import Clock

from engine.jobs import rows as rows_module
from engine.jobs.job import Job
from engine.runlog.states import RunState


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(rows_module.time, "perf_counter", fake)
    return fake


def write_rows(run_dir: Path, steps: range) -> None:
    """``metrics.csv`` with a row for each of ``steps`` (written whole each time, as it grows)."""
    lines = ["step,loss", *(f"{step},{1 / (step + 1):.4f}" for step in steps)]
    (run_dir / "metrics.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_steps_per_second_is_the_steps_over_the_seconds_between_the_looks_that_saw_them(
    tmp_path: Path, clock: Clock
) -> None:
    reading = rows_module.RunRows(tmp_path, ("step", "loss"))
    assert reading.steps_per_second() is None  # no row yet
    write_rows(tmp_path, range(0, 4))
    reading.sync()
    assert reading.steps_per_second() is None  # one look: no pace yet
    clock.now += 2.0
    write_rows(tmp_path, range(0, 14))
    assert reading.steps_per_second() == pytest.approx(10 / 2.0)  # steps 3 -> 13 in 2 s
    clock.now += 5.0
    assert reading.steps_per_second() == pytest.approx(10 / 2.0)  # no new row: the pace of the rows seen


def test_a_running_jobs_time_left_is_its_steps_left_at_that_pace(tmp_path: Path, clock: Clock) -> None:
    job = Job("toy-kind", {"steps": 100}, tmp_path, "toy", state=RunState.RUNNING)
    write_rows(tmp_path, range(0, 11))
    job.rows.sync()
    clock.now += 4.0
    write_rows(tmp_path, range(0, 21))
    assert job.rows.last_step == 20
    assert job.eta_seconds() == pytest.approx((100 - 20) / (10 / 4.0))  # 80 steps at 2.5 steps/s
    assert job.progress() == (pytest.approx(0.2), "step 20/100")
    job.state = RunState.STOPPED
    assert job.eta_seconds() is None  # no time left once it is not running
