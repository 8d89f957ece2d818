"""The lecture pace (engine.core.pace) belongs to the view (issue 58, item 9): a playhead that holds its first
row until the view's cue (or its wait's end), then moves at ``steps / seconds`` steps a second on an injected
clock (no wall-clock asserts), never faster and never beyond the rows logged; the training never waits for
it; the probe's switch stays one knob (the demo: on)."""

from __future__ import annotations

import threading

import pytest
from clocks import Clock
from hypothesis import given
from hypothesis import strategies as st

from engine.core.pace import (
    CUE_WAIT_SECONDS,
    LEAD_SECONDS,
    LECTURE_SECONDS,
    RECORDED_LEAD_SECONDS,
    Pace,
    Playhead,
)


def test_a_pace_spreads_the_steps_over_the_lecture_time() -> None:
    pace = Pace(150)
    assert pace.seconds == LECTURE_SECONDS == 25.0
    assert pace.due(0) == 0.0 and pace.due(75) == pytest.approx(12.5) and pace.due(150) == pytest.approx(25.0)
    assert pace.rate == pytest.approx(6.0)


def test_the_playhead_starts_at_the_first_row_and_moves_at_the_pace() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0, lead=0.0, cue_wait=0.0), clock=clock)
    assert head.at(None, None) is None and not head.started  # no row yet: nothing shown, no start
    clock.now = 5.0  # set-up took 5 s: the play starts with the first row, not at the click
    assert head.at(0, 100) == 0
    clock.now = 6.0
    assert head.at(0, 100) == 10
    clock.now = 10.0
    assert head.at(0, 100) == 50 and not head.done(100)
    clock.now = 15.0
    assert head.at(0, 100) == 100 and head.done(100)


def test_the_first_row_waits_for_the_cue_then_stays_for_the_lead_and_the_play_moves_on() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0), clock=clock)
    assert head.pace.lead == LEAD_SECONDS == 1.0 and head.pace.cue_wait == CUE_WAIT_SECONDS
    assert head.at(0, 100) == 0 and head.waiting()
    clock.now = 6.0  # a loaded browser has not drawn the first rows yet: the play waits for it
    assert head.at(0, 100) == 0 and head.waiting()
    head.cue()  # the browser drew step 0
    assert not head.waiting()
    clock.now = 6.0 + LEAD_SECONDS  # the lead: the class sees the first point before the curve grows
    assert head.at(0, 100) == 0
    clock.now = 6.0 + LEAD_SECONDS + 1.0
    assert head.at(0, 100) == 10
    head.cue()  # a second tab's cue: the play goes on where it is
    clock.now = 6.0 + LEAD_SECONDS + 2.0
    assert head.at(0, 100) == 20


def test_without_a_cue_the_play_starts_by_itself_after_the_wait() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0), clock=clock)
    clock.now = 3.0
    assert head.at(0, 100) == 0  # the first look
    clock.now = 3.0 + CUE_WAIT_SECONDS
    assert head.at(0, 100) == 0 and not head.waiting()  # the wait is over: no cue expected any more
    clock.now = 3.0 + CUE_WAIT_SECONDS + 1.0
    assert head.at(0, 100) == 10
    head.cue()  # a late cue (a tab slower than the wait) neither holds nor restarts the play
    clock.now = 3.0 + CUE_WAIT_SECONDS + 2.0
    assert head.at(0, 100) == 20


def test_a_cue_before_the_first_look_counts_the_lead_from_the_look() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0), clock=clock)
    head.cue()
    clock.now = 5.0
    assert head.at(0, 100) == 0 and not head.waiting()
    clock.now = 5.0 + LEAD_SECONDS + 0.5
    assert head.at(0, 100) == 5


def test_a_recorded_play_awaits_no_cue_and_stays_its_own_lead() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0, lead=RECORDED_LEAD_SECONDS, cue_wait=0.0), clock=clock)
    assert head.at(0, 100) == 0 and not head.waiting()
    clock.now = RECORDED_LEAD_SECONDS + 1.0
    assert head.at(0, 100) == 10


def test_a_run_slower_than_the_pace_is_shown_as_its_rows_come_and_never_jumps() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=100, seconds=10.0, lead=0.0, cue_wait=0.0), clock=clock)
    assert head.at(0, 0) == 0
    clock.now = 5.0
    assert head.at(0, 20) == 20  # only 20 steps logged after 5 s: shown as they come
    clock.now = 6.0
    assert head.at(0, 100) == 30  # the rest came at once: played on at the pace from step 20, no jump


@given(
    st.lists(st.tuples(st.floats(0.0, 5.0), st.integers(0, 40), st.booleans()), min_size=1, max_size=30),
    st.sampled_from([0.0, 3.0]),
)
def test_the_playhead_is_never_faster_than_the_pace_nor_beyond_the_rows(looks, cue_wait) -> None:
    clock, pace = Clock(0.0), Pace(steps=200, seconds=20.0, lead=1.0, cue_wait=cue_wait)
    head, last, shown = Playhead(pace, clock=clock), 0, []
    for pause, new_rows, cued in looks:
        clock.now += pause
        last += new_rows
        if cued:  # a browser's cue, at any time (before the first look, twice, late)
            head.cue()
        shown.append((clock.now, head.at(0, last), last))
    for (then, before, _), (now, after, rows) in zip(shown, shown[1:], strict=False):
        assert before <= after <= rows
        assert after - before <= (now - then) * pace.rate + 1
    assert shown[0][1] == 0


def test_a_playhead_is_safe_across_threads() -> None:
    clock = Clock(0.0)
    head = Playhead(Pace(steps=1000, seconds=10.0, lead=0.0, cue_wait=0.0), clock=clock)
    head.at(0, 1000)
    clock.now = 1.0
    found: list[int] = []
    threads = [threading.Thread(target=lambda: found.append(head.at(0, 1000))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(found) == {100}  # one second moved once, whoever asked


def test_the_switch_is_one_knob_flag_and_the_demo_turns_it_on() -> None:
    from engine.cli import build_parser
    from engine.lessons.presets import demo
    from engine.probe.config import ProbeConfig

    assert ProbeConfig().lecture_pace is False  # a researcher's run is drawn as fast as it trains
    args = build_parser().parse_args(["probe", "--lecture-pace", "--out", "x"])
    assert args.lecture_pace is True
    ((_, config),) = demo().configs()
    assert config["lecture_pace"] is True


class NoWaiting(threading.Event):
    """A run's stop event that fails any wait on it (a paced loop waited on its stop event between steps)."""

    def wait(self, timeout: float | None = None) -> bool:
        raise AssertionError(f"the training waited {timeout} s: the pace is the view's")


def test_a_paced_probe_run_trains_at_full_speed_and_never_waits() -> None:
    """The switch on, the loop logs every step without a wait (it failed on e23a065: Pace.before waited on
    the stop event)."""
    from engine.probe.config import ProbeConfig
    from engine.probe.loop import run_probe
    from engine.runlog.events import Row

    config = ProbeConfig(data="demo", limit=60, steps=3, lecture_pace=True, snapshot_every=0)
    rows = [event for event in run_probe(config, stop=NoWaiting()) if isinstance(event, Row)]
    assert [row.step for row in rows] == [0, 1, 2, 3]
