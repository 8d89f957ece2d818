"""Reading a run's rows: its ``metrics.csv`` followed by byte offset (:class:`engine.runlog.MetricsTail`),
whoever writes it, the columns it will have before its header is written, and the pace of new steps."""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import pandas as pd

from engine import runlog
from engine.core import settings
from engine.experiments import EXPERIMENTS


def declared_columns(kind: str, config: Any) -> tuple[str, ...]:
    """The columns a run of ``kind`` will write, before its ``metrics.csv`` header can be read."""
    experiment = EXPERIMENTS.get(kind)
    if experiment is None:
        return tuple(config.metric_columns()) if hasattr(config, "metric_columns") else ("step",)
    return experiment.columns_for(config)


class RunRows:
    """The rows of one run's ``metrics.csv`` read so far, and when each newest step was seen (the speed over
    the last ``speed_window`` looks). Thread-safe: the job worker reads new rows while page threads read."""

    def __init__(self, run_dir: Path, declared: tuple[str, ...]):
        self.declared = declared
        self._tail = runlog.MetricsTail(Path(run_dir))
        self._lock = threading.Lock()
        self._ticks: deque[tuple[float, int]] = deque(maxlen=settings.get("speed_window"))

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns of ``metrics.csv`` (its header once written, else those the run will write)."""
        header = self._tail.columns
        return tuple(header) if header else self.declared

    def sync(self) -> None:
        """Read the rows completed in ``metrics.csv`` since the last look; note the newest step's time."""
        with self._lock:
            new = self._tail.read_new()
            if new and new[-1].get("step") is not None:
                self._ticks.append((time.perf_counter(), int(new[-1]["step"])))

    def records(self) -> list[dict[str, Any]]:
        """The rows on disk so far, as dicts over :attr:`columns`."""
        self.sync()
        with self._lock:
            return list(self._tail.rows)

    def metrics(self) -> pd.DataFrame:
        """The rows on disk so far, parsed as :func:`engine.runlog.read_metrics` does (the declared columns
        and no row before the header is written)."""
        self.sync()
        with self._lock:
            if self._tail.columns is None:
                return pd.DataFrame(columns=list(self.declared))
            return self._tail.frame()

    @property
    def bad_rows(self) -> int:
        """Malformed rows of ``metrics.csv`` skipped so far (a damaged row never hides the run)."""
        with self._lock:
            return int(self._tail.bad_rows)

    @property
    def last_step(self) -> int | None:
        """The step of the newest row on disk (None before the first)."""
        self.sync()
        with self._lock:
            rows = self._tail.rows
            step = rows[-1].get("step") if rows else None
        return None if step is None else int(step)

    def steps_per_second(self) -> float | None:
        """Steps per second over the last ``speed_window`` times new rows were seen (None: too few)."""
        self.sync()
        with self._lock:
            ticks = list(self._ticks)
        if len(ticks) < 2 or ticks[-1][0] <= ticks[0][0]:
            return None
        return (ticks[-1][1] - ticks[0][1]) / (ticks[-1][0] - ticks[0][0])
