"""A lesson's claims as data: what a lesson's sentence says about its preset's runs.

A lesson (:class:`engine.core.declaration.Lesson`) says what its preset's runs show. Each such sentence is a
:class:`Claim`: the preset and the run it is about, the measure (a ``metrics.csv`` column), what is expected
of it, and whether it is this lab's measurement (``source="lab"``, checked: ``python -m engine lessons
check``) or the paper's finding (``source="paper"``, shown with what the lab measured, never failed). A
claim has a ``key``: the lesson texts print its measured figures through placeholders
(:mod:`engine.lessons.numbers`). How a claim is judged against run folders is :mod:`engine.lessons.judging`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DIRECTIONS = ("rises", "falls")
ORDERS = ("below", "above")
SHAPES = ("monotone", "correlates", "co-moves")
#: two runs read together: ``coincides`` (the same curve, and it moved), ``warns`` (the collapse warning,
#: :data:`engine.core.measures.COLLAPSE_ONSET`, fires on the run and not on ``than``)
PAIRS = ("coincides", "warns")
EXPECTS = DIRECTIONS + ORDERS + SHAPES + PAIRS
WAYS = {"monotone": DIRECTIONS, "correlates": ("same", "opposite"), "co-moves": ("same", "opposite")}
SOURCES = ("lab", "paper")


@dataclass(frozen=True)
class Claim:
    """One sentence of a lesson as a checkable statement about a preset's runs (see the module's text; the
    rules of ``expect`` are :mod:`engine.lessons.judging`'s)."""

    preset: str
    run: str
    measure: str
    expect: str
    text: str
    than: str | None = None
    by: float = 0.0
    factor: float = 1.0
    source: str = "lab"
    key: str = ""
    way: str | None = None
    other: str | None = None
    share: float | None = None
    #: ``coincides``: the largest gap allowed between the two runs at a step, relative to their values
    within: float | None = None
    #: the paper's own figures (for its claims), by name, printed by the lesson's placeholders
    reported: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        def refuse(why: str) -> None:
            raise ValueError(f"claim {self.text!r}: {why}")

        if self.expect not in EXPECTS:
            refuse(f"expect must be one of {EXPECTS}")
        if (self.expect in ORDERS + PAIRS) != (self.than is not None):
            refuse(f"an order or a pair ({ORDERS + PAIRS}) names the run it compares with, and only they do")
        if (self.expect == "coincides") != (self.within is not None and self.within > 0):
            refuse("coincides gives the gap it allows (within > 0), and only coincides does")
        if self.expect in WAYS and self.way not in WAYS[self.expect]:
            refuse(f"{self.expect} says which way: one of {WAYS[self.expect]}")
        if self.expect not in WAYS and self.way is not None:
            refuse("only monotone, correlates and co-moves take a way")
        if (self.expect == "co-moves") != (self.other is not None):
            refuse("co-moves names the other measure, and only co-moves does")
        if self.share is not None and (self.expect != "monotone" or not 0 < self.share <= 1):
            refuse("share is a fraction in (0, 1] of a monotone claim's intervals")
        if self.source not in SOURCES:
            refuse(f"source must be one of {SOURCES}")
        if self.by < 0:
            refuse("by must be ≥ 0")

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs of the preset it reads."""
        return (self.run,) if self.than is None else (self.run, self.than)

    @property
    def measures(self) -> tuple[str, ...]:
        """The columns it reads."""
        return (self.measure,) if self.other is None else (self.measure, self.other)


def lesson_first(claims: Sequence[Claim], measures: Sequence[str]) -> list[str]:
    """``measures`` (a page's charts) with those its lesson's ``claims`` are about first, in the order the
    claims name them, then the others in their own order: the probe's IsoScore and silhouette before its
    loss and accuracy, so that the first screen holds what the lesson teaches."""
    named = [claim.measure for claim in claims if claim.measure in measures]
    return list(dict.fromkeys([*named, *measures]))
