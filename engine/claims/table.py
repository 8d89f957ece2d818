"""The claims table: a setup's seeds summarised (mean ± sample std of each figure over the member runs'
``summary.json``), whether the paper's finding holds, and whether the std is negligible.

The finding (Mickus et al. 2024): IsoScore falls, the silhouette rises, and the two are strongly
anti-correlated over the updates. It *holds* for a run when IsoScore ends below its start, the silhouette ends
above its start, and both Pearson r and Spearman ρ of IsoScore against the silhouette are at most
:data:`STRONG` (−0.8: the paper's weakest Pearson figure is −0.808); for a setup when it holds in every seed.

The paper says five seeds give "negligible standard deviations". The lab calls a setup's std *negligible* when
the std over seeds of each of IsoScore's and the silhouette's end values, r and ρ is at most
:data:`NEGLIGIBLE` (0.01, in the figures' own units: each lies in [−1, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.claims.setups import ClaimSetup

STRONG = -0.8
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
    """Why the finding fails for one run's ``summary`` (empty: it holds)."""
    reasons = []
    get = summary.get
    if not _lt(get("isoscore_end"), get("isoscore_start")):
        reasons.append("IsoScore does not fall")
    if not _lt(get("silhouette_start"), get("silhouette_end")):
        reasons.append("silhouette does not rise")
    if not _le(get("pearson_r"), STRONG):
        reasons.append(f"r > {_signed(STRONG, 1)}")
    if not _le(get("spearman_rho"), STRONG):
        reasons.append(f"ρ > {_signed(STRONG, 1)}")
    return reasons


def _lt(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a < b


def _le(a: Any, b: float) -> bool:
    return isinstance(a, (int, float)) and math.isfinite(a) and a <= b


@dataclass(frozen=True)
class ClaimRow:
    """One setup's row: its figures over the seeds' summaries, the verdict and the runs' failures."""

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

    @property
    def items_text(self) -> str:
        if self.sample is None or self.sample >= self.items:
            return f"{self.items:,}"
        which = "one fixed sample of" if self.fixed else "a fresh sample of"
        return f"{self.items:,} (measured on {which} {self.sample:,})"

    @property
    def holds(self) -> bool:
        return self.seeds > 0 and self.held == self.seeds

    @property
    def verdict(self) -> str:
        if self.seeds == 0:
            return "no finished run"
        if self.holds:
            return f"holds ({self.held}/{self.seeds})"
        return f"does not hold ({self.held}/{self.seeds}: {'; '.join(self.reasons)})"

    @property
    def negligible(self) -> bool | None:
        """Whether every :data:`SPREAD_FIGURES` std is at most :data:`NEGLIGIBLE` (None: under 2 seeds)."""
        spreads = [self.stats[name] for name in SPREAD_FIGURES]
        if any(s.n < 2 or s.std is None for s in spreads):
            return None
        return all(s.std <= NEGLIGIBLE for s in spreads)


def claim_row(
    setup: ClaimSetup,
    summaries: Sequence[Mapping[str, Any]],
    items: int,
    failed: Sequence[str] = (),
    sample: int | None = None,
    fixed: bool = False,
    changed: Sequence[str] = (),
) -> ClaimRow:
    """The row of ``setup`` from its finished seeds' summaries."""
    stats = {name: stat([s.get(name) for s in summaries]) for name in FIGURES}
    reasons: list[str] = []
    held = 0
    for summary in summaries:
        why = run_holds(summary)
        held += not why
        reasons += [r for r in why if r not in reasons]
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
    )


COLUMNS = (
    "setup",
    "data",
    "vectors",
    "items",
    "seeds",
    "IsoScore start → end",
    "silhouette start → end",
    "Pearson r",
    "Spearman ρ",
    "paper",
    "finding",
)


def cells(row: ClaimRow) -> list[str]:
    """The row's cells, in :data:`COLUMNS`' order."""
    s = row.stats

    def arrow(start: str, end: str, digits: int) -> str:
        return f"{s[start].text(digits)} → {s[end].text(digits)}"

    return [
        row.setup.title,
        row.setup.data,
        row.setup.vectors,
        row.items_text,
        str(row.seeds),
        arrow("isoscore_start", "isoscore_end", 4),
        arrow("silhouette_start", "silhouette_end", 3),
        s["pearson_r"].text(3),
        s["spearman_rho"].text(4),
        row.setup.paper_note,
        row.verdict,
    ]


def markdown(rows: Sequence[ClaimRow]) -> str:
    """The claims table in Markdown."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(row)) + " |" for row in rows]
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
