"""The claims that read two runs together (engine/lessons/judging.py): ``coincides`` (the same curve, and it
moved) and ``warns`` (the collapse warning fires on the run and not on the other), each failing without
training, on a gap, or on a warning that fires on both."""

from __future__ import annotations

import pytest

from engine.core.lesson_claims import Claim
from engine.lessons.judging import FAIL, PASS, VACUOUS, Trace, judge


def trace(*values: float) -> Trace:
    return Trace({"m": tuple((float(10 * step), value) for step, value in enumerate(values))})


def same(within: float = 1e-3, by: float = 10.0) -> Claim:
    return Claim("P", "sg", "m", "coincides", "the two coincide", than="none", within=within, by=by)


WARNS = Claim("P", "none", "m", "warns", "the warning fires on the collapse run", than="jepa")


def test_two_runs_that_coincide_and_moved_pass() -> None:
    seeds = {
        "sg": [trace(262.0, 150.0, 21.0008), trace(261.0, 149.0, 22.0)],
        "none": [trace(262.0, 150.0, 20.9987), trace(261.0, 149.0, 22.0)],
    }
    verdict = judge(same(), seeds)
    assert verdict.outcome == PASS, verdict.measured
    assert verdict.figures["gap"] == pytest.approx(0.0021 / 21.0008)
    assert verdict.figures["moved"] == pytest.approx((240.9992 + 239.0) / 2)
    assert "largest gap" in verdict.measured


def test_a_gap_or_no_move_fails_and_the_first_rows_alone_never_pass() -> None:
    apart = {"sg": [trace(262.0, 150.0, 30.0)], "none": [trace(262.0, 150.0, 21.0)]}
    assert judge(same(), apart).outcome == FAIL
    still = {"sg": [trace(262.0, 261.0, 260.0)], "none": [trace(262.0, 261.0, 260.0)]}
    assert judge(same(), still).outcome == FAIL  # they coincide, but nothing moved: no lesson in it
    verdict = judge(same(), {"sg": [trace(262.0, 21.0)], "none": [trace(262.0, 21.0)]})
    assert verdict.outcome == PASS and not verdict.vacuous  # cut to the first row, it would not hold


def test_the_warning_fires_on_the_collapse_run_and_not_beside_it() -> None:
    seeds = {"none": [trace(262.0, 180.0, 21.0)] * 2, "jepa": [trace(262.0, 259.0, 257.0)] * 2}
    verdict = judge(WARNS, seeds)
    assert verdict.outcome == PASS, verdict.measured
    assert verdict.figures == {**verdict.figures, "fired": 1.0, "than_fired": 0.0, "onset": 10.0}
    both = {"none": [trace(262.0, 21.0)], "jepa": [trace(262.0, 100.0)]}
    assert judge(WARNS, both).outcome == FAIL  # it fires beside it too
    late = {"none": [trace(262.0, 21.0), trace(262.0, 250.0)], "jepa": [trace(262.0, 259.0)]}
    assert judge(WARNS, late).outcome == FAIL  # one seed never warned
    assert judge(WARNS, seeds).outcome != VACUOUS


def test_a_pair_claim_names_its_other_run_and_coincides_its_gap() -> None:
    with pytest.raises(ValueError, match="names the run"):
        Claim("P", "a", "m", "warns", "no other run")
    with pytest.raises(ValueError, match="within"):
        Claim("P", "a", "m", "coincides", "no gap given", than="b")
    with pytest.raises(ValueError, match="within"):
        Claim("P", "a", "m", "below", "a gap on an order", than="b", within=0.1)
