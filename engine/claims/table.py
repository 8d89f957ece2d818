"""The claims table: a setup's seeds summarised (mean ± sample std of each figure over the member runs'
``summary.json``), the two verdicts, the run's budget, and whether the std is negligible.

**The lab's verdict** (the paper's finding, qualitatively: IsoScore falls, the silhouette rises, the two
strongly anti-correlated) *holds* for a run when IsoScore ends below its start, the silhouette ends above its
start and at least :data:`MIN_SILHOUETTE` (0.1: clusters that are there at all, not a rise from −0.1 to
−0.005 that leaves none), and both Pearson r and Spearman ρ of IsoScore against the silhouette are at most
:data:`STRONG` (−0.8: the paper's weakest Pearson figure is −0.808); for a setup when it holds in every seed.

**The paper's verdict** *matches* for a run when Spearman ρ is below :data:`PAPER_RHO` (−0.998, the paper's
figure for every setup) and Pearson r is within :data:`PAPER_R_TOLERANCE` (0.05) of the paper's own r for
that setup (``ClaimSetup.paper_r``); for a setup when it matches in every seed. A setup for which the paper
quotes no r (App. A, App. B, the demo) has no paper verdict. A run that is not at the paper's protocol (fewer
updates, metrics every k-th update, a sample) says so beside the verdict: its figures are not the paper's.

The paper says five seeds give "negligible standard deviations". The lab calls a setup's std *negligible* when
the std over seeds of each of IsoScore's and the silhouette's end values, r and ρ is at most
:data:`NEGLIGIBLE` (0.01, in the figures' own units: each lies in [−1, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.claims.setups import ClaimSetup

STRONG = -0.8
#: the lab's verdict needs clusters at the end: a final silhouette of at least this
MIN_SILHOUETTE = 0.1
#: the paper's verdict: ρ below this, and r within this of the paper's r
PAPER_RHO = -0.998
PAPER_R_TOLERANCE = 0.05
NEGLIGIBLE = 0.01
#: the figures summarised over seeds (keys of a probe run's summary.json)
FIGURES = (
    "isoscore_start",
    "isoscore_end",
    "silhouette_start",
    "silhouette_end",
    "pearson_r",
    "spearman_rho",
)
#: the figures whose std decides "negligible"
SPREAD_FIGURES = ("isoscore_end", "silhouette_end", "pearson_r", "spearman_rho")


@dataclass(frozen=True)
class Stat:
    """Mean and sample std (``ddof=1``; 0 for one value) of a figure over ``n`` seeds (None: no values)."""

    mean: float | None
    std: float | None
    n: int

    def text(self, digits: int = 3) -> str:
        if self.mean is None:
            return "—"
        std = "" if self.n < 2 or self.std is None else f" ± {self.std:.{digits}f}"
        return f"{_signed(self.mean, digits)}{std}"


def _signed(value: float, digits: int) -> str:
    return f"{value:.{digits}f}".replace("-", "−")


def stat(values: Sequence[Any]) -> Stat:
    """:class:`Stat` of the finite numbers among ``values``."""
    numbers = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(float(v))]
    if not numbers:
        return Stat(None, None, 0)
    array = np.asarray(numbers)
    std = float(array.std(ddof=1)) if len(array) > 1 else 0.0
    return Stat(float(array.mean()), std, len(array))


def run_holds(summary: Mapping[str, Any]) -> list[str]:
    """Why the lab's verdict fails for one run's ``summary`` (empty: it holds)."""
    reasons = []
    get = summary.get
    if not _lt(get("isoscore_end"), get("isoscore_start")):
        reasons.append("IsoScore does not fall")
    if not _lt(get("silhouette_start"), get("silhouette_end")):
        reasons.append("silhouette does not rise")
    if not _le(MIN_SILHOUETTE, get("silhouette_end")):
        reasons.append(f"silhouette ends below {MIN_SILHOUETTE}")
    if not _le(get("pearson_r"), STRONG):
        reasons.append(f"r > {_signed(STRONG, 1)}")
    if not _le(get("spearman_rho"), STRONG):
        reasons.append(f"ρ > {_signed(STRONG, 1)}")
    return reasons


def paper_mismatch(summary: Mapping[str, Any], paper_r: float) -> list[str]:
    """Why one run's ``summary`` does not match the paper's figures (empty: it does): ρ below
    :data:`PAPER_RHO` and r within :data:`PAPER_R_TOLERANCE` of ``paper_r``."""
    reasons = []
    rho, r = summary.get("spearman_rho"), summary.get("pearson_r")
    if not (_finite(rho) and rho < PAPER_RHO):
        reasons.append(f"ρ not below {_signed(PAPER_RHO, 3)}")
    if not (_finite(r) and abs(r - paper_r) <= PAPER_R_TOLERANCE + 1e-12):
        reasons.append(f"r not within {PAPER_R_TOLERANCE} of {_signed(paper_r, 3)}")
    return reasons


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _lt(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a < b


def _le(a: Any, b: Any) -> bool:
    return _finite(a) and _finite(b) and a <= b


@dataclass(frozen=True)
class ClaimRow:
    """One setup's row: its figures over the seeds' summaries, both verdicts, the runs' settings (its
    budget) and failures."""

    setup: ClaimSetup
    items: int
    stats: dict[str, Stat]
    seeds: int
    held: int
    reasons: tuple[str, ...]
    failed: tuple[str, ...] = ()
    #: the measures on a sample of this many items (None: all); ``fixed``: one sample for the whole run
    sample: int | None = None
    fixed: bool = False
    #: the settings changed from the setup's own (a budget, ``--short``): ``name setup → run``
    changed: tuple[str, ...] = ()
    #: the runs' probe settings (the seed aside): the updates column and the protocol come from them
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: seeds that match the paper's figures, and why the others do not (None: no paper r to compare)
    paper_held: int | None = None
    paper_reasons: tuple[str, ...] = ()

    @property
    def items_text(self) -> str:
        if not self.items:
            return "—"
        if self.sample is None or self.sample >= self.items:
            return f"{self.items:,}"
        which = "one fixed sample of" if self.fixed else "a fresh sample of"
        return f"{self.items:,} (measured on {which} {self.sample:,})"

    @property
    def steps(self) -> int:
        """The updates each run made."""
        return int(self.settings.get("steps", self.setup.length))

    @property
    def budget(self) -> tuple[str, ...]:
        """How the runs depart from the setup's own protocol (empty: they follow it)."""
        return budget_notes(self.setup, self.settings)

    @property
    def updates_text(self) -> str:
        """The updates column: ``1000``, or ``200 of 1000; metrics every 5th update; …`` under a budget."""
        steps = self.steps if self.steps == self.setup.length else f"{self.steps} of {self.setup.length}"
        return "; ".join([str(steps), *self.budget[1:]]) if self.budget else str(steps)

    @property
    def holds(self) -> bool:
        return self.seeds > 0 and self.held == self.seeds

    @property
    def verdict(self) -> str:
        """The lab's verdict."""
        if self.seeds == 0:
            return "no finished run"
        if self.holds:
            return f"holds ({self.held}/{self.seeds})"
        return f"does not hold ({self.held}/{self.seeds}: {'; '.join(self.reasons)})"

    @property
    def matches_paper(self) -> bool | None:
        """Whether every seed matches the paper's figures (None: no paper r, or no finished run)."""
        if self.paper_held is None or self.seeds == 0:
            return None
        return self.paper_held == self.seeds

    @property
    def paper_verdict(self) -> str:
        """The paper's verdict, with the budget's caveat when the runs are not at the paper's protocol."""
        if self.seeds == 0:
            return "no finished run"
        if self.paper_held is None:
            return "no figure to compare"
        if self.matches_paper:
            text = f"matches ({self.paper_held}/{self.seeds})"
        else:
            text = f"does not match ({self.paper_held}/{self.seeds}: {'; '.join(self.paper_reasons)})"
        return f"{text}; not the paper's protocol" if self.budget else text

    @property
    def negligible(self) -> bool | None:
        """Whether every :data:`SPREAD_FIGURES` std is at most :data:`NEGLIGIBLE` (None: under 2 seeds)."""
        spreads = [self.stats[name] for name in SPREAD_FIGURES]
        if any(s.n < 2 or s.std is None for s in spreads):
            return None
        return all(s.std <= NEGLIGIBLE for s in spreads)


def budget_notes(setup: ClaimSetup, settings: Mapping[str, Any]) -> tuple[str, ...]:
    """How ``settings`` depart from ``setup``'s own protocol, one note each (the updates first; empty when
    they do not): fewer or more updates, metrics every k-th update, a sample, an item limit."""
    own = setup.settings
    steps = int(settings.get("steps", setup.length))
    notes = [f"{steps} of {setup.length} updates"] if steps != setup.length else []
    every = settings.get("metric_every") or 1
    if every != (own.get("metric_every") or 1):
        notes.append(f"metrics every {every}th update" if every > 1 else "metrics every update")
    sample = settings.get("sample_size")
    if sample != own.get("sample_size") and sample is not None:
        which = "one fixed sample" if settings.get("fixed_sample") else "a fresh sample"
        notes.append(f"measured on {which} of {sample:,}")
    limit = settings.get("limit")
    if limit != own.get("limit") and limit is not None:
        notes.append(f"limit {limit:,} items")
    if notes and steps == setup.length:
        notes.insert(0, f"{steps} updates")
    return tuple(notes)


def claim_row(
    setup: ClaimSetup,
    summaries: Sequence[Mapping[str, Any]],
    items: int,
    failed: Sequence[str] = (),
    sample: int | None = None,
    fixed: bool = False,
    changed: Sequence[str] = (),
    settings: Mapping[str, Any] | None = None,
) -> ClaimRow:
    """The row of ``setup`` from its finished seeds' summaries (``settings``: the runs' probe settings;
    None: the setup's own)."""
    stats = {name: stat([s.get(name) for s in summaries]) for name in FIGURES}
    reasons: list[str] = []
    paper_reasons: list[str] = []
    held = 0
    paper_held: int | None = None if setup.paper_r is None else 0
    for summary in summaries:
        why = run_holds(summary)
        held += not why
        reasons += [r for r in why if r not in reasons]
        if setup.paper_r is not None and paper_held is not None:
            mismatch = paper_mismatch(summary, setup.paper_r)
            paper_held += not mismatch
            paper_reasons += [r for r in mismatch if r not in paper_reasons]
    return ClaimRow(
        setup,
        items,
        stats,
        len(summaries),
        held,
        tuple(reasons),
        tuple(failed),
        sample,
        fixed,
        tuple(changed),
        dict(settings if settings is not None else setup.settings),
        paper_held,
        tuple(paper_reasons),
    )


COLUMNS = (
    "setup",
    "data",
    "vectors",
    "items",
    "updates",
    "seeds",
    "IsoScore start → end",
    "silhouette start → end",
    "Pearson r",
    "Spearman ρ",
    "paper",
    "source",
    "lab verdict",
    "paper verdict",
)


def cells(row: ClaimRow, *, links: bool = True) -> list[str]:
    """The row's cells, in :data:`COLUMNS`' order (``links``: the source as a Markdown link into
    ``docs/paper.md``, relative to ``docs/``)."""
    s = row.stats

    def arrow(start: str, end: str, digits: int) -> str:
        return f"{s[start].text(digits)} → {s[end].text(digits)}"

    part, anchor = row.setup.source
    source = (f"[{part}](paper.md#{anchor})" if links else row.setup.source_text) if part else "—"
    return [
        row.setup.title,
        row.setup.data,
        row.setup.vectors,
        row.items_text,
        row.updates_text,
        str(row.seeds),
        arrow("isoscore_start", "isoscore_end", 4),
        arrow("silhouette_start", "silhouette_end", 3),
        s["pearson_r"].text(3),
        s["spearman_rho"].text(4),
        row.setup.paper_note,
        source,
        row.verdict,
        row.paper_verdict,
    ]


def markdown(rows: Sequence[ClaimRow]) -> str:
    """The claims table in Markdown (a ``|`` inside a cell escaped)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def negligible_lines(rows: Sequence[ClaimRow], keys: Sequence[str] = ("i", "ii")) -> list[str]:
    """One line per setup among ``keys``: the std of each spread figure and whether all are negligible."""
    out = []
    for row in rows:
        if row.setup.key not in keys:
            continue
        stds = ", ".join(f"{name} {row.stats[name].std:.4f}" for name in SPREAD_FIGURES if row.stats[name].n)
        verdict = {None: "not decided (under 2 seeds)", True: "negligible", False: "NOT negligible"}
        out.append(
            f"{row.setup.title}: std over {row.seeds} seeds: {stds or 'none'} → "
            f"{verdict[row.negligible]} (criterion: every std ≤ {NEGLIGIBLE})"
        )
    return out


def differences(rows: Sequence[ClaimRow]) -> list[str]:
    """One line per row: how the lab's setup departs from the paper's, and the failed runs if any."""
    out = []
    for row in rows:
        failed = f" Failed: {'; '.join(row.failed)}." if row.failed else ""
        changed = f" Changed here: {', '.join(row.changed)}." if row.changed else ""
        out.append(f"- {row.setup.title}: {row.setup.differs}.{changed}{failed}")
    return out


def rules() -> list[str]:
    """The two verdicts' rules, one line each (printed under the table)."""
    strong, low = _signed(STRONG, 1), _signed(PAPER_RHO, 3)
    return [
        f"Lab verdict: holds for a run when IsoScore falls, the silhouette rises and ends ≥ "
        f"{MIN_SILHOUETTE}, and r and ρ ≤ {strong}; for a setup when it holds in every seed.",
        f"Paper verdict: matches for a run when ρ < {low} and r is within {PAPER_R_TOLERANCE} of the "
        "paper's r (docs/paper.md); for a setup when it matches in every seed.",
    ]
