"""The events of a run, defined once: what an experiment yields, what the runner writes and what a child
process tells the server.

An experiment is a generator of these events (see :mod:`engine.runner`):

- :class:`Progress`: set-up work (loading data, encoding); not logged;
- :class:`Points`: the texts and labels of the points that snapshots stand for (once, before snapshots);
- :class:`Row`: one logged step, its metric values and optionally an embedding snapshot and a spectrum.

The run folder is the one source of truth for rows, points, snapshots and spectra: the runner writes them
there. A child process run by the app (``python -m engine KIND --events``) prints only *liveness* on its
stdout, one JSON object per line (:func:`to_line` / :func:`from_line`): :class:`Progress`, :class:`Tick` (a
step is on disk, with or without a snapshot) and :class:`Finished` (the summary). The server reads the rows
themselves from ``metrics.csv``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.runlog.files import jsonable


@dataclass(frozen=True)
class Progress:
    """Set-up progress: ``phase`` (what is being done) and ``fraction`` (0..1, or None when unknown)."""

    phase: str
    fraction: float | None = None


@dataclass(frozen=True)
class Points:
    """The sentences (``texts``) and ``labels`` that the rows of every snapshot stand for."""

    texts: list[str]
    labels: list[str] | None = None


@dataclass(frozen=True)
class Row:
    """One logged step: ``values`` by column (``step`` not included), ``snapshot`` an (n, d) array or None,
    ``spectrum`` a 1-D array (the covariance eigenvalues, descending; written to ``spectrum.csv``, not a
    column of ``metrics.csv``) or None."""

    step: int
    values: dict[str, Any] = field(default_factory=dict)
    snapshot: np.ndarray | None = None
    spectrum: np.ndarray | None = None

    def get(self, column: str) -> Any:
        """The value of ``column`` (``"step"`` included), None when not logged at this step."""
        return self.step if column == "step" else self.values.get(column)

    def record(self, columns: tuple[str, ...] | list[str]) -> dict[str, Any]:
        """The row as a dict over ``columns`` (missing ones None): what ``metrics.csv`` holds."""
        return {column: self.get(column) for column in columns}


@dataclass(frozen=True)
class Tick:
    """On a child's stdout: the row of ``step`` is on disk (and its snapshot, when ``snapshot``)."""

    step: int
    snapshot: bool = False


@dataclass(frozen=True)
class Finished:
    """On a child's stdout, last: the run's summary (as written to ``summary.json``)."""

    summary: dict[str, Any]


Event = Progress | Points | Row
WireEvent = Progress | Tick | Finished
_WIRE = {"progress": Progress, "tick": Tick, "finished": Finished}


def tick_of(row: Row) -> Tick:
    return Tick(step=int(row.step), snapshot=row.snapshot is not None)


def to_line(event: WireEvent) -> str:
    """One JSON line for a child's stdout."""
    name = next(key for key, kind in _WIRE.items() if isinstance(event, kind))
    return json.dumps({"event": name, **jsonable(vars(event))}, default=str)


def from_line(line: str) -> WireEvent | None:
    """The event of one stdout line; None for anything else (a stray print, a torn line)."""
    try:
        payload = json.loads(line)
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    kind = _WIRE.get(payload.pop("event", None))
    if kind is None:
        return None
    try:
        return kind(**payload)
    except TypeError:
        return None
