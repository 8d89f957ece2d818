"""The events of a run, defined once: what an experiment yields, what the runner writes and what a child
process tells the server.

An experiment is a generator of these events (see :mod:`engine.runlog.runner`):

- :class:`Progress`: set-up work (loading data, encoding); not logged. Work that counts (sentences encoded)
  makes its Progress with a :class:`Meter` (count, rate and time left in its ``phase`` text); a set-up
  call that reports through a callback runs under :func:`relay`, which yields its Progress as it comes;
- :class:`Points`: the texts and labels of the points that snapshots stand for (once, before snapshots);
- :class:`Row`: one logged step, its metric values and optionally an embedding snapshot and a spectrum.

The run folder is the one source of truth for rows, points, snapshots and spectra: the runner writes them
there. A child process run by the app (``python -m engine KIND --events``) prints only *liveness* on its
stdout, one JSON object per line (:func:`to_line` / :func:`from_line`): :class:`Progress`, :class:`Tick` (a
step is on disk, with or without a snapshot) and :class:`Finished` (the summary). The server reads the rows
themselves from ``metrics.csv``.
"""

from __future__ import annotations

import contextvars
import json
import queue
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from engine.runlog.files import jsonable


@dataclass(frozen=True)
class Progress:
    """Set-up progress: ``phase`` (what is being done) and ``fraction`` (0..1, or None when unknown)."""

    phase: str
    fraction: float | None = None


@dataclass
class Meter:
    """The :class:`Progress` of counted set-up work (``phase`` of ``unit``, e.g. "encoding" sentences):
    ``meter(done, total)`` gives the Progress whose phase reads "encoding 3,200/10,662 sentences · 310/s ·
    24 s left", or None when the last one is under ``every`` seconds old (the last of the work always
    comes). Rate = items done since the first call / seconds since then; time left = (total − done) / rate.
    ``clock`` (seconds, monotonic) is injectable: tests give their own."""

    phase: str
    unit: str
    every: float = 1.0
    clock: Callable[[], float] = time.monotonic
    _start: tuple[float, int] | None = None
    _shown: float | None = None

    def __call__(self, done: int, total: int) -> Progress | None:
        now = self.clock()
        if self._start is None:
            self._start = (now, done)
        finished = done >= total
        if not finished and self._shown is not None and now - self._shown < self.every:
            return None
        self._shown = now
        return Progress(self.text(done, total, now), done / total if total else None)

    def text(self, done: int, total: int, now: float) -> str:
        """The phase line: count, then rate and time left once a second has gone by."""
        line = f"{self.phase} {done:,}/{total:,} {self.unit}"
        began, first = self._start or (now, done)
        seconds = now - began
        if seconds <= 0 or done <= first:
            return line
        rate = (done - first) / seconds
        left = (total - done) / rate
        shown = f"{rate:,.0f}" if rate >= 1 else f"{rate:.2g}"  # 0.3/s, never "0/s"
        return f"{line} · {shown}/s · {duration_text(left)} left" if done < total else f"{line} · done"


def duration_text(seconds: float) -> str:
    """``24 s``, ``3 min 05 s``, ``1 h 02 min``."""
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, whole = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {whole:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


Result = TypeVar("Result")
_DONE = object()


def relay(
    work: Callable[[Callable[[Progress | None], None]], Result],
) -> Generator[Progress, None, Result]:
    """Run ``work(report)`` and yield each :class:`Progress` it reports while it runs; return its result
    (``result = yield from relay(work)``). An experiment is a generator, and a set-up call deep inside it
    (encoding a corpus) cannot yield: it reports through a callback instead, and runs in a helper thread
    (with the caller's context: its stop, :mod:`engine.core.stopping`) while this generator yields what it
    reports. The work's exception, a stop included, is raised here."""
    found: queue.Queue = queue.Queue()
    outcome: dict[str, Any] = {}

    def report(progress: Progress | None) -> None:
        if progress is not None:
            found.put(progress)

    def run() -> None:
        try:
            outcome["result"] = work(report)
        except BaseException as err:  # noqa: BLE001 - handed to the generator, raised there
            outcome["error"] = err
        finally:
            found.put(_DONE)

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name="set-up", daemon=True).start()
    while (item := found.get()) is not _DONE:
        yield item
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


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
