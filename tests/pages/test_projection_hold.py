"""The live projection's duty cycle (ui/projection_hold.py): a frame that took c seconds to build is held for
c / DUTY seconds, for its own job only, and never takes more than DUTY of the time."""

from __future__ import annotations

import pytest
from clocks import Clock

from ui import projection_hold
from ui.projection_hold import DUTY


def test_a_frame_is_held_for_its_build_time_over_the_duty() -> None:
    state, clock, frame = {}, Clock(), {"panels": ["frame at step 25"]}
    assert projection_hold.kept(state, "iso", "run-a", clock) is None  # nothing built yet
    projection_hold.keep(state, "iso", "run-a", frame, seconds=0.5, clock=clock)
    clock.now += 0.5 / DUTY - 0.01
    assert projection_hold.kept(state, "iso", "run-a", clock) is frame
    assert projection_hold.kept(state, "iso", "run-b", clock) is None  # another run is not held
    assert projection_hold.kept(state, "other-page", "run-a", clock) is None
    clock.now += 0.02
    assert projection_hold.kept(state, "iso", "run-a", clock) is None  # due again


@pytest.mark.parametrize("seconds", [0.0, 0.03, 1.7])
def test_building_never_takes_more_than_the_duty_of_the_time(seconds: float) -> None:
    """Builds of ``seconds`` each, asked for every 0.1 s over 60 s: at most DUTY of the time."""
    state, clock, building = {}, Clock(), 0.0
    end = clock.now + 60.0
    while clock.now < end:
        if projection_hold.kept(state, "iso", "run-a", clock) is None:
            clock.now += seconds
            building += seconds
            projection_hold.keep(state, "iso", "run-a", {}, seconds=seconds, clock=clock)
        clock.now += 0.1
    assert building <= DUTY * 60.0 + seconds
