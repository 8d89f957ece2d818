"""Collapse, seen coming (engine/core/collapse_onset.py): the first step whose RankMe is below the declared
fraction of its start; never on a run that keeps its rank, on a non-positive start or on non-finite values."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from engine.core.collapse_onset import onset_step
from engine.core.measures import COLLAPSE_ONSET, MEASURES, RANKME


def test_the_onset_is_the_first_step_below_the_fraction_of_the_start() -> None:
    collapsing = [(0, 262.0), (10, 230.0), (20, 190.0), (30, 120.0), (40, 21.0)]
    assert onset_step(collapsing, fraction=0.75) == 20  # 190 < 196.5
    assert onset_step(collapsing, fraction=0.5) == 30
    assert onset_step([(0, 262.0), (10, 259.0), (20, 257.0)]) is None  # the JEPA run keeps its rank
    assert onset_step([(0, math.nan), (5, 100.0), (10, 40.0)], fraction=0.5) == 10  # the first finite start
    assert onset_step([(0, 0.0), (10, -1.0)]) is None
    assert onset_step([]) is None


def test_the_fraction_is_in_rankmes_glossary_entry() -> None:
    from engine.lessons.texts import glossary

    assert f"{COLLAPSE_ONSET:.0%}" in MEASURES[RANKME].plain
    (term,) = [term for term in glossary() if term.name == RANKME]
    assert f"{COLLAPSE_ONSET:.0%} of its first value" in term.plain


@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=12),
    st.floats(min_value=0.01, max_value=1.0),
)
def test_the_onset_is_a_logged_step_whose_value_is_below_the_fraction(values, fraction) -> None:
    points = list(enumerate(values))
    step = onset_step(points, fraction)
    finite = [v for v in values if math.isfinite(v)]
    if step is None:
        assert not finite or finite[0] <= 0 or all(v >= fraction * finite[0] for v in finite[1:])
    else:
        assert values[step] < fraction * finite[0] and finite[0] > 0
