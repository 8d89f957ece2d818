"""The lecture pace (engine.core.pace): waits between logged steps, on an injected clock (no wall-clock
asserts); the probe's switch reaches its loop, its CLI flag and its config; the demo preset turns it on."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from waiting import wait_for

from engine.core.pace import LECTURE_SECONDS, SHOWN_WAIT, Pace, StopSignal, lecture_pace


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


class ShownAt(FakeTime):
    """A clock whose ``shown`` cue is set once it reaches ``at`` seconds (a screen drew the first rows)."""

    def __init__(self, at: float, stop_at: float | None = None) -> None:
        super().__init__(stop_at)
        self.at, self.shown = at, threading.Event()

    def wait(self, seconds: float) -> bool:
        stopped = super().wait(seconds)
        if self.now >= self.at:
            self.shown.set()
        return stopped


def test_a_run_of_the_app_counts_its_pace_from_the_moment_its_first_rows_are_shown() -> None:
    """Cold server (issue 48): step 0 at once, then a wait until the screen shows it (12 s here), then the
    whole lecture from step 1: step 4 of 4 comes 20 s after the cue, not 20 s after step 0."""
    time = ShownAt(12.0)
    pace = Pace(steps=4, seconds=20.0, clock=time.clock, wait=time.wait, shown=time.shown)
    due = []
    for step in range(5):
        assert pace.before(step) is False
        due.append(round(time.now, 6))
    assert due == [0.0, 17.0, 22.0, 27.0, 32.0] and pace.waited == pytest.approx(32.0)


def test_a_run_nobody_shows_goes_on_after_the_longest_wait_and_a_stop_ends_the_wait() -> None:
    unseen = ShownAt(at=float("inf"))
    pace = Pace(steps=2, seconds=10.0, clock=unseen.clock, wait=unseen.wait, shown=unseen.shown)
    assert [pace.before(step) for step in range(3)] == [False] * 3
    assert unseen.now == pytest.approx(SHOWN_WAIT + 10.0)  # the hold, then the lecture from there
    stopped = ShownAt(at=float("inf"), stop_at=3.0)
    pace = Pace(steps=2, seconds=10.0, clock=stopped.clock, wait=stopped.wait, shown=stopped.shown)
    assert pace.before(0) is False and pace.before(1) is True and stopped.now == 3.0


def test_only_a_stop_signal_brings_the_cue_a_plain_event_starts_at_step_0() -> None:
    cued, plain = StopSignal(), threading.Event()
    assert lecture_pace(True, 150, cued).shown is cued.shown
    assert lecture_pace(True, 150, plain).shown is None  # a CLI run: nobody to wait for


def test_sigusr1_sets_the_cue_of_a_child_run(tmp_path) -> None:
    """The server's child: ``python -m engine probe --events`` waits after step 0 until SIGUSR1 (sent by
    Job.mark_shown), then paces (30 steps over 25 s: step 1 comes 0.8 s after the cue, or after step 0 without
    one); then SIGTERM stops it cleanly."""
    import os
    import signal
    import subprocess
    import sys
    import time as clock

    from engine.command.exits import EXIT_INTERRUPTED
    from engine.core import settings

    out = tmp_path / "run"
    command = [sys.executable, "-m", "engine", "probe", "--data", "demo", "--limit", "60", "--steps", "30"]
    command += ["--lecture-pace", "--snapshot-every", "0", "--events", "--out", str(out)]
    env = {**os.environ, settings.SETTINGS["no_progress"].env: "1"}
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    metrics = out / "metrics.csv"
    try:
        wait_for(lambda: metrics.is_file() and len(metrics.read_text().splitlines()) >= 2, 120, "step 0")
        clock.sleep(2.0)
        rows = metrics.read_text().splitlines()
        assert len(rows) == 2, rows  # the header and step 0: the pace holds step 1 for the cue
        child.send_signal(signal.SIGUSR1)
        wait_for(lambda: len(metrics.read_text().splitlines()) >= 3, 20, "step 1 after the cue")
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == EXIT_INTERRUPTED, child.stderr.read()
    finally:
        child.kill()
