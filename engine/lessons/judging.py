"""How a lesson's claim (:class:`engine.core.lesson_claims.Claim`) is judged against run folders.

Nothing here imports an experiment or torch (:mod:`engine.lessons.check` runs the presets).

A run is measured once per seed (``lessons check --seeds k``): a :class:`Trace` each. ``start``/``end``: the
first and last finite value of the column in a trace; means are over the seeds, and ``sd`` is the pooled
standard deviation of the two samples compared, √((s₁² + s₂²)/2) (0 with one seed). How a claim is judged:

- ``rises``: mean end − mean start > ``by`` and > 2 sd;  ``falls``: the other way;
- ``below``: ``factor`` · mean end(``than``) − mean end(run) > ``by`` and > 2 sd; ``above``: the other way;
- ``monotone`` (``way`` rises or falls): in every seed, Spearman's ρ of the value against the step is ≥ 0.9
  (rises) or ≤ −0.9 (falls); with ``share``, at least that share of the logged intervals move that way;
- ``correlates`` (``way`` same or opposite): in every seed, the run's ``summary.json`` holds Pearson r and
  Spearman ρ of the measure against the silhouette (``<measure>_pearson_r``, ``<measure>_spearman_rho``),
  both ≥ ``by`` (same) or ≤ −``by`` (opposite);
- ``co-moves`` (``way`` same or opposite): in every seed, Spearman's ρ of the measure against ``other`` over
  the steps where both are logged is ≥ ``by`` or ≤ −``by`` (``by`` 0.9 unless given);
- ``coincides``: in every seed, at every step both runs logged, |a − b| ≤ ``within`` · max(|a|, |b|) (the
  largest such relative gap over the seeds is ``gap``), and the run's measure moved: mean |end − start| >
  ``by`` (two runs that never moved coincide without training);
- ``warns``: the collapse warning (:func:`engine.core.collapse_onset.onset_step`: the measure below
  :data:`engine.core.measures.COLLAPSE_ONSET` of its start) fires in every seed of the run and in no seed of
  ``than`` (``fired``, ``than_fired``: the shares of seeds; ``onset``: its mean step).

A claim is also judged on its runs' first logged values as if they were the last (:meth:`Trace.untrained`):
a lab claim that holds then needs no training, and fails the check (:attr:`Verdict.vacuous`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.collapse_onset import onset_step
from engine.core.lesson_claims import DIRECTIONS, ORDERS, PAIRS, SHAPES, Claim

#: |Spearman ρ| a monotone series reaches (against the step), and a co-movement by default
MONOTONE_RHO = 0.9
#: fewer logged values than this give no shape (monotone, co-moves): not measured
MIN_POINTS = 3

PASS, FAIL, PAPER, MISSING = "PASS", "FAIL", "paper's claim, not checked here", "NOT MEASURED"
VACUOUS = "FAIL: holds without training"
#: the caveat of every verdict measured on one seed, positive or negative, lab's or paper's: with one seed the
#: spread is not measured (sd 0), so no comparison has its 2-pooled-sd margin and no shape is repeated
ONE_SEED = "one seed: no spread measured, so no margin beyond noise (--seeds 3 gives one)"
#: what a paper's claim measured on this lab's start says: a comparison shown, never a verdict of a check
COMPARED = "compared on this start, not checked"
ALONG, AGAINST = "goes the paper's way here", "does not go the paper's way here"
#: the one line that says what "hold without training" means (lessons check prints it under its count)
WITHOUT_TRAINING = (
    "hold without training: a lab claim judged again on its runs' first logged rows (before any update) as "
    "if they were the last; one that holds there owes nothing to training, and fails the check"
)


Points = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Trace:
    """One run folder (one seed) as a claim reads it: each column's finite (step, value) pairs, in order,
    and the run's ``summary.json``."""

    columns: Mapping[str, Points]
    summary: Mapping[str, Any] = field(default_factory=dict)

    def values(self, measure: str) -> list[float]:
        return [value for _, value in self.columns.get(measure, ())]

    def untrained(self) -> Trace:
        """The trace as if the run had stopped at its first logged row: each column's first value only, and
        no summary (no correlation over one row)."""
        return Trace({name: points[:1] for name, points in self.columns.items()}, {})


Measured = Mapping[str, Sequence[Trace]]


def finite(value: object) -> bool:
    """Whether ``value`` reads as a finite float."""
    try:
        return math.isfinite(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values)


def _sd(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def pooled_sd(a: Sequence[float], b: Sequence[float]) -> float:
    """The pooled standard deviation of two samples of seeds: √((s₁² + s₂²)/2); 0 with one seed each."""
    return math.sqrt((_sd(a) ** 2 + _sd(b) ** 2) / 2)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ of two equally long series; None with fewer than :data:`MIN_POINTS` or a constant one."""
    if len(x) < MIN_POINTS or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def _ends(traces: Sequence[Trace], measure: str) -> tuple[list[float], list[float]] | None:
    """The starts and ends of ``measure`` over the seeds; None when a seed never logged it."""
    found = [trace.values(measure) for trace in traces]
    if not found or not all(found):
        return None
    return [v[0] for v in found], [v[-1] for v in found]


def _shape(claim: Claim, trace: Trace) -> float | None:
    """A monotone or co-moves claim's statistic on one trace: ρ (or the share of intervals)."""
    if claim.expect == "co-moves":
        mine, theirs = (
            dict(trace.columns.get(claim.measure, ())),
            dict(trace.columns.get(claim.other or "", ())),
        )
        steps = [step for step in mine if step in theirs]
        return spearman([mine[s] for s in steps], [theirs[s] for s in steps])
    points = trace.columns.get(claim.measure, ())
    if len(points) < MIN_POINTS:
        return None
    if claim.share is not None:
        moves = [b[1] - a[1] for a, b in zip(points, points[1:], strict=False)]
        return sum((m > 0) if claim.way == "rises" else (m < 0) for m in moves) / len(moves)
    return spearman([s for s, _ in points], [v for _, v in points])


def _correlation(claim: Claim, trace: Trace) -> tuple[float, float] | None:
    r, rho = (trace.summary.get(f"{claim.measure}_{name}") for name in ("pearson_r", "spearman_rho"))
    return (float(r), float(rho)) if finite(r) and finite(rho) else None


def figures(claim: Claim, measured: Measured) -> dict[str, float] | None:
    """The claim's measured figures, means over the seeds (None when one it needs was not measured):
    ``start``/``end`` (and ``than_start``/``than_end``, ``change``, ``sd``) for a direction or an order;
    ``rho`` (or ``share``) per shape, its worst seed as ``worst``; ``r`` and ``rho`` for ``correlates``.
    Every claim also gives ``start``/``end`` of its measure when logged (for the lesson's texts)."""
    traces = measured.get(claim.run) or ()
    out: dict[str, float] = {}
    ends = _ends(traces, claim.measure) if traces else None
    if ends:
        out.update(start=_mean(ends[0]), end=_mean(ends[1]), start_sd=_sd(ends[0]), end_sd=_sd(ends[1]))
    if claim.expect in DIRECTIONS:
        if not ends:
            return None
        out.update(change=out["end"] - out["start"], sd=pooled_sd(*ends))
    elif claim.expect in ORDERS:
        other = _ends(measured.get(claim.than or "") or (), claim.measure)
        if not ends or not other:
            return None
        scaled = [claim.factor * value for value in other[1]]
        out.update(than_start=_mean(other[0]), than_end=_mean(other[1]), sd=pooled_sd(ends[1], scaled))
        out["change"] = out["end"] - claim.factor * out["than_end"]
    elif claim.expect in PAIRS:
        paired = _paired(claim, traces, measured.get(claim.than or "") or ())
        if paired is None or not ends:
            return None
        out.update(paired)
    elif claim.expect == "correlates":
        pairs = [_correlation(claim, trace) for trace in traces]
        if not pairs or any(pair is None for pair in pairs):
            return None
        rs, rhos = [p[0] for p in pairs if p], [p[1] for p in pairs if p]
        worst = max if claim.way == "opposite" else min
        out.update(r=_mean(rs), rho=_mean(rhos), worst_r=worst(rs), worst_rho=worst(rhos))
    else:
        found = [_shape(claim, trace) for trace in traces]
        if not found or any(value is None for value in found):
            return None
        values = [v for v in found if v is not None]
        down = claim.way in ("falls", "opposite") and claim.share is None
        out.update(
            {"share" if claim.share else "rho": _mean(values), "worst": (max if down else min)(values)}
        )
    return out


def _gap(mine: Points, theirs: Points) -> float | None:
    """The largest relative gap |a − b| / max(|a|, |b|) of two series at the steps both logged (None: no
    common step)."""
    other = dict(theirs)
    gaps = [
        abs(a - other[step]) / max(abs(a), abs(other[step])) if (a or other[step]) else 0.0
        for step, a in mine
        if step in other
    ]
    return max(gaps) if gaps else None


def _paired(claim: Claim, traces: Sequence[Trace], others: Sequence[Trace]) -> dict[str, float] | None:
    """A pair claim's figures (seeds matched by their order); None when a seed of either run is missing."""
    if not traces or not others or (claim.expect == "coincides" and len(others) < len(traces)):
        return None
    if claim.expect == "warns":
        steps = [onset_step(trace.columns.get(claim.measure, ())) for trace in traces]
        quiet = [onset_step(trace.columns.get(claim.measure, ())) for trace in others]
        fired = [step for step in steps if step is not None]
        found = {
            "fired": len(fired) / len(steps),
            "than_fired": (len(quiet) - quiet.count(None)) / len(quiet),
        }
        return found | ({"onset": _mean(fired)} if fired else {})
    gaps = [
        _gap(trace.columns.get(claim.measure, ()), other.columns.get(claim.measure, ()))
        for trace, other in zip(traces, others, strict=False)
    ]
    if any(gap is None for gap in gaps):
        return None
    moves = [abs(v[-1] - v[0]) for v in (trace.values(claim.measure) for trace in traces)]
    return {"gap": max(g for g in gaps if g is not None), "moved": _mean(moves)}


def holds(claim: Claim, measured: Measured) -> bool | None:
    """Whether ``claim`` holds on ``measured`` (run name -> its traces, one per seed); None when a value it
    needs was not measured."""
    found = figures(claim, measured)
    if found is None:
        return None
    if claim.expect in DIRECTIONS or claim.expect in ORDERS:
        gap = found["change"] if claim.expect in ("rises", "above") else -found["change"]
        return gap > claim.by and gap > 2 * found["sd"]
    if claim.expect == "coincides":
        return found["gap"] <= (claim.within or 0.0) and found["moved"] > claim.by
    if claim.expect == "warns":
        return found["fired"] == 1.0 and found["than_fired"] == 0.0
    if claim.expect == "correlates":
        if claim.way == "same":
            return min(found["worst_r"], found["worst_rho"]) >= claim.by
        return max(found["worst_r"], found["worst_rho"]) <= -claim.by
    if claim.share is not None:
        return found["worst"] >= claim.share
    least = claim.by or MONOTONE_RHO
    return found["worst"] >= least if claim.way in ("rises", "same") else found["worst"] <= -least


def untrained(measured: Measured) -> dict[str, list[Trace]]:
    """Every trace cut to its first logged row (:meth:`Trace.untrained`)."""
    return {run: [trace.untrained() for trace in traces] for run, traces in measured.items()}


@dataclass(frozen=True)
class Verdict:
    """A claim judged: ``outcome`` is :data:`PASS`, :data:`FAIL`, :data:`VACUOUS` (a lab claim that holds
    on its runs' first rows too), :data:`PAPER` (the paper's claim: shown, not counted) or :data:`MISSING`;
    ``measured`` says what was measured; ``holds`` whether the expectation held (None: not measured);
    ``vacuous`` whether it held without training; ``figures`` the measured figures (:func:`figures`);
    ``seeds`` how many seeds it was measured on (:func:`seeds_of`)."""

    claim: Claim
    outcome: str
    measured: str
    holds: bool | None
    vacuous: bool = False
    figures: Mapping[str, float] = field(default_factory=dict)
    seeds: int = 0

    @property
    def fails(self) -> bool:
        """Whether this verdict makes the check fail: a lab claim that did not hold, was not measured, or
        holds without training."""
        return self.claim.source == "lab" and self.outcome in (FAIL, MISSING, VACUOUS)

    def reason(self) -> str:
        """One line: why the claim failed (or what it says, when it passed)."""
        where = f"{self.claim.preset} / {self.claim.run} / {self.claim.measure}"
        return f"{where}: {self.claim.text} — {self.measured}"


def describe(claim: Claim, measured: Measured) -> str:
    """What was measured, in one line: ``start → end`` of each run (means over the seeds, ± their sd), and
    the shape's statistic."""
    found = figures(claim, measured) or {}
    seeds = max((len(measured.get(run) or ()) for run in claim.runs), default=0)
    parts = []
    for run in claim.runs:
        ends = _ends(measured.get(run) or (), claim.measure)
        if not ends:
            parts.append(f"{run}: not measured")
            continue
        spread = (lambda v: f" ± {_num(_sd(v))}") if seeds > 1 else (lambda v: "")
        parts.append(
            f"{run}: {_num(_mean(ends[0]))}{spread(ends[0])} → {_num(_mean(ends[1]))}{spread(ends[1])}"
        )
    if claim.expect == "correlates":
        parts.append(f"r {_num(found['r'])}, ρ {_num(found['rho'])}" if "r" in found else "r, ρ not measured")
    elif claim.expect == "coincides" and "gap" in found:
        parts.append(f"largest gap {_num(found['gap'])} of the values, moved by {_num(found['moved'])}")
    elif claim.expect == "warns" and "fired" in found:
        at = f" (mean step {_num(found['onset'])})" if "onset" in found else ""
        parts.append(f"fired in {found['fired']:.0%} of the seeds{at}, beside: {found['than_fired']:.0%}")
    elif claim.expect in SHAPES:
        name = (
            "share of intervals"
            if claim.share
            else ("ρ with " + claim.other if claim.other else "ρ with step")
        )
        value = found.get("share" if claim.share else "rho")
        parts.append(
            f"{name} {_num(value)} (worst seed {_num(found['worst'])})"
            if value is not None
            else f"{name}: not measured"
        )
    elif "sd" in found and seeds > 1:
        parts.append(f"difference {_num(found['change'])}, 2 × pooled sd {_num(2 * found['sd'])}")
    return "; ".join(parts) + (f" ({seeds} seeds)" if seeds > 1 else "")


def seeds_of(claim: Claim, measured: Measured) -> int:
    """The seeds ``claim`` was measured on: the fewest of its runs' (0 when one was not measured)."""
    return min((len(measured.get(run) or ()) for run in claim.runs), default=0)


def judge(claim: Claim, measured: Measured) -> Verdict:
    """The :class:`Verdict` of ``claim`` on ``measured``, and on its runs' first rows (no training). Measured
    on one seed, every verdict (it holds or not, the lab's or the paper's) ends with :data:`ONE_SEED`; a
    paper's claim says which way this start went, :data:`COMPARED`, never that it holds."""
    result = holds(claim, measured)
    text = describe(claim, measured)
    found = figures(claim, measured) or {}
    seeds = seeds_of(claim, measured)
    caveat = f"; {ONE_SEED}" if seeds == 1 and result is not None else ""
    if claim.source == "paper":
        seen = "not measured" if result is None else f"{COMPARED}: {ALONG if result else AGAINST}"
        return Verdict(claim, PAPER, f"{text} ({seen}{caveat})", result, figures=found, seeds=seeds)
    if result is None:
        return Verdict(claim, MISSING, text, None, figures=found, seeds=seeds)
    text += caveat
    before = untrained(measured)
    vacuous = bool(holds(claim, before))
    if vacuous:
        text += f"; on the first rows alone: {describe(claim, before)}"
    outcome = VACUOUS if result and vacuous else (PASS if result else FAIL)
    return Verdict(claim, outcome, text, result, vacuous, found, seeds)


def _num(value: float | None) -> str:
    """A measured value with four significant digits (3 decimals for values between 0.1 and 1000)."""
    if value is None:
        return "—"
    if abs(value) < 0.1 or abs(value) >= 1000:
        return f"{value:.4g}"
    return f"{value:.3f}".rstrip("0").rstrip(".")
