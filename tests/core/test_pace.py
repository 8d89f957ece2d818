"""The lecture pace (engine.core.pace): waits between logged steps, on an injected clock (no wall-clock
asserts); the probe's switch reaches its loop, its CLI flag and its config; the demo preset turns it on."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from engine.core.pace import LECTURE_SECONDS, Pace, lecture_pace


class FakeTime:
    """A clock that a wait advances (a stop may end a wait early)."""

    def __init__(self, stop_at: float | None = None) -> None:
        self.now, self.waits, self.stop_at = 0.0, [], stop_at

    def clock(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 9))
        if self.stop_at is not None and self.now + seconds >= self.stop_at:
            self.now = self.stop_at
            return True
        self.now += seconds
        return False


def test_steps_come_at_their_share_of_the_lecture_time() -> None:
    time = FakeTime()
    pace = Pace(steps=4, seconds=20.0, clock=time.clock, wait=time.wait)
    stopped = [pace.before(step) for step in range(5)]
    assert stopped == [False] * 5
    assert time.waits == [5.0, 5.0, 5.0, 5.0] and time.now == 20.0 and pace.waited == 20.0


def test_the_time_a_step_takes_is_subtracted_and_a_slow_run_is_not_slowed() -> None:
    time = FakeTime()
    pace = Pace(steps=4, seconds=20.0, clock=time.clock, wait=time.wait)
    pace.before(0)
    time.now += 2.0  # step 1 trained for 2 s: 3 s left to wait
    pace.before(1)
    time.now += 30.0  # step 2 trained for 30 s: past its due time (10 s), no wait
    pace.before(2)
    assert time.waits == [3.0] and pace.waited == 3.0


def test_only_logged_steps_wait_for_their_due_time() -> None:
    time = FakeTime()
    pace = Pace(steps=100, seconds=10.0, clock=time.clock, wait=time.wait)
    for step in (0, 10, 20, 100):  # metrics every 10 steps: the loop asks before those only
        pace.before(step)
    assert time.waits == [1.0, 1.0, 8.0] and time.now == pytest.approx(10.0)


def test_a_stop_ends_the_wait_and_says_so() -> None:
    time = FakeTime(stop_at=7.0)
    pace = Pace(steps=2, seconds=20.0, clock=time.clock, wait=time.wait)
    assert pace.before(0) is False
    assert pace.before(1) is True and time.now == 7.0 and pace.waited == 7.0


def test_the_switch_makes_a_pace_only_when_on() -> None:
    stop = threading.Event()
    assert lecture_pace(False, 150, stop) is None
    made = lecture_pace(True, 150, stop)
    assert made.seconds == LECTURE_SECONDS and made.due(150) == LECTURE_SECONDS and made.wait == stop.wait


def test_the_switch_is_one_knob_flag_and_the_demo_turns_it_on() -> None:
    from engine.cli import build_parser
    from engine.lessons.presets import demo
    from engine.probe.config import ProbeConfig

    assert ProbeConfig().lecture_pace is False  # a researcher's run goes as fast as it trains
    args = build_parser().parse_args(["probe", "--lecture-pace", "--out", "x"])
    assert args.lecture_pace is True
    ((_, config),) = demo().configs()
    assert config["lecture_pace"] is True


def test_a_paced_probe_run_logs_every_step_and_keeps_training_seconds(monkeypatch) -> None:
    """The loop asks the pace before each logged row; its waits are not in the ``seconds`` column."""
    from engine.probe.config import ProbeConfig
    from engine.probe.loop import run_probe
    from engine.runlog.events import Row

    asked: list[int] = []
    now = [0.0]  # the loop's clock: only the pace's waits move it

    class Recorded(Pace):
        def before(self, step: int) -> bool:
            asked.append(step)
            now[0] += 1000.0  # a 1000-s wait before each logged step
            self.waited += 1000.0
            return False

    monkeypatch.setattr("engine.probe.loop.time", SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(
        "engine.probe.loop.lecture_pace", lambda on, steps, stop: Recorded(steps) if on else None
    )
    config = ProbeConfig(data="demo", limit=60, steps=3, lecture_pace=True)
    rows = [event for event in run_probe(config) if isinstance(event, Row)]
    assert asked == [0, 1, 2, 3] and [row.step for row in rows] == [0, 1, 2, 3]
    assert [row.values["seconds"] for row in rows] == [0.0] * 4  # 4000 s of waits, none of it training
