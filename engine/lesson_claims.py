"""A lesson's claims as data, and how one is judged against run folders.

A lesson (:class:`engine.experiment.Lesson`) says what its preset's runs show. Each such sentence is a
:class:`Claim`: the preset and the run it is about, the measure (a ``metrics.csv`` column), and what is
expected of it — a direction over the run (``rises``, ``falls``, ``steady``) or an order between two runs of
the preset at the end (``below``, ``above``) — and whether it is this lab's measurement (``source="lab"``,
checked: ``python -m engine lessons check``) or the paper's finding (``source="paper"``, shown with what the
lab measured, never failed). Nothing here imports an experiment or torch (:mod:`engine.lessons_check` runs
the presets).

How a claim is judged (``start``/``end``: the first and last finite value of the column in the run):

- ``rises``: end − start > ``by``;  ``falls``: start − end > ``by``;
- ``steady``: |end − start| ≤ ``by`` · |start| (``by`` is a fraction of the start);
- ``under``: start < ``by`` and end < ``by`` (a value that starts and ends small: the loss);
- ``below``: end(run) < ``factor`` · end(``than``) − ``by``;  ``above``: end(run) > ``factor`` · end(``than``)
  + ``by``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DIRECTIONS = ("rises", "falls", "steady", "under")
ORDERS = ("below", "above")
SOURCES = ("lab", "paper")

PASS, FAIL, PAPER, MISSING = "PASS", "FAIL", "paper's claim, not checked here", "NOT MEASURED"


@dataclass(frozen=True)
class Claim:
    """One sentence of a lesson as a checkable statement about a preset's runs (see the module's text)."""

    preset: str
    run: str
    measure: str
    expect: str
    text: str
    than: str | None = None
    by: float = 0.0
    factor: float = 1.0
    source: str = "lab"

    def __post_init__(self) -> None:
        if self.expect not in DIRECTIONS + ORDERS:
            raise ValueError(f"claim {self.text!r}: expect must be one of {DIRECTIONS + ORDERS}")
        if (self.expect in ORDERS) != (self.than is not None):
            raise ValueError(f"claim {self.text!r}: an order ({ORDERS}) names the run it compares with")
        if self.source not in SOURCES:
            raise ValueError(f"claim {self.text!r}: source must be one of {SOURCES}")
        if self.by < 0:
            raise ValueError(f"claim {self.text!r}: by must be ≥ 0")

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs of the preset it reads."""
        return (self.run,) if self.than is None else (self.run, self.than)


@dataclass(frozen=True)
class Series:
    """A measure over one run: its first and last finite values (None: never logged)."""

    start: float | None
    end: float | None


@dataclass(frozen=True)
class Verdict:
    """A claim judged: ``outcome`` is :data:`PASS`, :data:`FAIL`, :data:`PAPER` (the paper's claim: shown,
    not counted) or :data:`MISSING`; ``measured`` says what was measured; ``holds`` whether the expectation
    held on the measured values (None: not measured)."""

    claim: Claim
    outcome: str
    measured: str
    holds: bool | None

    @property
    def fails(self) -> bool:
        """Whether this verdict makes the check fail: a lab claim that did not hold or was not measured."""
        return self.claim.source == "lab" and self.outcome in (FAIL, MISSING)

    def reason(self) -> str:
        """One line: why the claim failed (or what it says, when it passed)."""
        where = f"{self.claim.preset} / {self.claim.run} / {self.claim.measure}"
        return f"{where}: {self.claim.text} — {self.measured}"


def series(run_dir: Path, measure: str) -> Series:
    """The first and last finite values of ``measure`` in the run folder's ``metrics.csv``."""
    from engine.runlog.reading import read_metrics

    frame = read_metrics(Path(run_dir))
    if measure not in frame.columns:
        return Series(None, None)
    values = [float(v) for v in frame[measure].tolist() if _finite(v)]
    return Series(values[0], values[-1]) if values else Series(None, None)


def _finite(value: object) -> bool:
    try:
        return math.isfinite(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def holds(claim: Claim, measured: Mapping[str, Series]) -> bool | None:
    """Whether ``claim`` holds on ``measured`` (run name -> its :class:`Series` of the claim's measure);
    None when a value it needs was not measured."""
    first = measured.get(claim.run)
    if first is None or first.start is None or first.end is None:
        return None
    if claim.expect == "rises":
        return first.end - first.start > claim.by
    if claim.expect == "falls":
        return first.start - first.end > claim.by
    if claim.expect == "steady":
        return abs(first.end - first.start) <= claim.by * abs(first.start)
    if claim.expect == "under":
        return first.start < claim.by and first.end < claim.by
    other = measured.get(claim.than or "")
    if other is None or other.end is None:
        return None
    if claim.expect == "below":
        return first.end < claim.factor * other.end - claim.by
    return first.end > claim.factor * other.end + claim.by


def describe(claim: Claim, measured: Mapping[str, Series]) -> str:
    """What was measured, in one line: ``start → end`` of the run, and of the run it is compared with."""

    def path(run: str) -> str:
        found = measured.get(run)
        if found is None or found.start is None or found.end is None:
            return f"{run}: not measured"
        return f"{run}: {_num(found.start)} → {_num(found.end)}"

    return "; ".join(path(run) for run in claim.runs)


def judge(claim: Claim, measured: Mapping[str, Series]) -> Verdict:
    """The :class:`Verdict` of ``claim`` on ``measured``."""
    result = holds(claim, measured)
    text = describe(claim, measured)
    if claim.source == "paper":
        seen = "not measured" if result is None else ("holds here" if result else "does not hold here")
        return Verdict(claim, PAPER, f"{text} ({seen})", result)
    if result is None:
        return Verdict(claim, MISSING, text, None)
    return Verdict(claim, PASS if result else FAIL, text, result)


def _num(value: float) -> str:
    """A measured value with four significant digits (3 decimals for values between 0.1 and 1000)."""
    if abs(value) < 0.1 or abs(value) >= 1000:
        return f"{value:.4g}"
    return f"{value:.3f}".rstrip("0").rstrip(".")
