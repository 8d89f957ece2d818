"""A run folder read for a replay: every file the lesson shows, checked, with a damaged one named in one line.

What a lesson cannot do without (``config.json``, ``metrics.csv``) is an error; what only colours or speeds
it up (``points.csv``, ``status.json``, ``spectrum.csv``) is a warning, and the lesson goes on without it. A
probe run's ``alignment`` column is its class alignment: it is read as ``class_alignment``
(:func:`engine.charts.charted`), so that the lesson never names it like SimCSE's alignment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from engine import runlog
from engine.charts.geometry import charted
from engine.core import paths
from engine.core.errors import ConfigError, DataError, one_line

#: ``metrics.csv`` columns that are bookkeeping, not curves
BOOKKEEPING = ("step", "seconds", "eval_seconds")


@dataclass
class RunData:
    """One run as the replay sees it: its files, read once."""

    path: Path
    name: str
    kind: str
    config: dict[str, Any]
    state: str
    metrics: pd.DataFrame  # numeric cells (NaN where not logged), sorted by step
    summary: dict[str, Any] | None
    points: pd.DataFrame | None  # ``text``, ``label`` of the snapshot rows; None when unknown
    snapshots: list[tuple[int, Path]]
    frames: list[tuple[int, Path]]
    warnings: list[str] = field(default_factory=list)
    error: str | None = None  # a failed run's one-line error (status.json)
    spectra: runlog.Spectra | None = None  # ``spectrum.csv``: the covariance spectra of its logged steps

    @property
    def curves(self) -> list[str]:
        """The metric columns that hold at least one number, in ``metrics.csv`` order."""
        return [c for c in self.metrics.columns if c not in BOOKKEEPING and self.metrics[c].notna().any()]

    def series(self, column: str) -> pd.DataFrame:
        """``step`` and ``column`` where the column is logged (a finite number)."""
        if column not in self.metrics:
            return pd.DataFrame({"step": [], column: []})
        out = self.metrics[["step", column]]
        return out[out[column].map(lambda v: math.isfinite(v))].reset_index(drop=True)

    @property
    def last_step(self) -> int | None:
        return int(self.metrics["step"].iloc[-1]) if len(self.metrics) else None


def resolve_run(spec: str) -> Path:
    """A run folder from the command line: a folder path, else the name of a run under ``cache/runs``."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise ConfigError(f"{spec}: not a folder (a run is a folder with config.json and metrics.csv)")
    if not spec or Path(spec).name != spec or spec in (".", ".."):  # a path, not a run's name
        raise ConfigError(f"{spec}: no such run folder")
    candidate = paths.runs_dir() / spec
    if candidate.is_dir():
        return candidate
    raise ConfigError(f"{spec}: no such run folder, and no run of that name in {paths.runs_dir()}")


def _where(path: Path, name: str) -> str:
    """A file of a run, named for a one-line message: ``<run>/<file>``."""
    return f"{path.name}/{name}"


def load_run(run_dir: Path, name: str | None = None) -> RunData:
    """Read everything a lesson shows from ``run_dir``; a DataError names a missing or damaged file."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise DataError(f"{run_dir}: not a folder")
    if not (run_dir / runlog.CONFIG).is_file():
        raise DataError(f"{run_dir}: not a run folder (no {runlog.CONFIG})")
    try:
        config = runlog.read_json(run_dir / runlog.CONFIG)
    except (OSError, ValueError) as err:
        raise DataError(f"{_where(run_dir, runlog.CONFIG)} is damaged ({one_line(err)})") from None
    warnings: list[str] = []
    kind = str(config.get("kind") or "?")
    metrics = charted(_metrics(run_dir, warnings), kind)  # a probe's alignment is its class alignment
    points = _points(run_dir, warnings)
    state, error = _state(run_dir, warnings)
    return RunData(
        path=run_dir,
        name=name or run_dir.resolve().name,
        kind=kind,
        config=config,
        state=state,
        error=error,
        metrics=metrics,
        summary=runlog.read_summary(run_dir),
        points=points,
        snapshots=runlog.list_snapshots(run_dir),
        frames=runlog.list_frames(run_dir),
        warnings=warnings,
        spectra=_spectra(run_dir, warnings),
    )


def _spectra(run_dir: Path, warnings: list[str]) -> runlog.Spectra | None:
    """The run's spectra (None when it logged none); a damaged ``spectrum.csv`` is a warning, not an error."""
    try:
        found = runlog.read_spectrum(run_dir)
    except (DataError, OSError) as err:
        warnings.append(f"{one_line(err)}; the lesson shows no spectrum")
        return None
    return found if len(found) else None


def _state(run_dir: Path, warnings: list[str]) -> tuple[str, str | None]:
    """The run's state and, for a failed run, its one-line error."""
    if not (run_dir / runlog.STATUS).exists():
        return "unknown", None
    try:
        error = runlog.read_json(run_dir / runlog.STATUS).get("error")
        return runlog.run_state(run_dir), None if error is None else " ".join(str(error).split())
    except (OSError, ValueError) as err:
        warnings.append(
            f"{_where(run_dir, runlog.STATUS)} is damaged ({one_line(err)}); its state shows as unknown"
        )
        return "unknown", None


def _metrics(run_dir: Path, warnings: list[str]) -> pd.DataFrame:
    """``metrics.csv`` as numbers: ``step`` whole and rising, other cells NaN where empty."""
    where = _where(run_dir, runlog.METRICS)
    if not (run_dir / runlog.METRICS).exists():
        warnings.append(f"{run_dir.name}: no {runlog.METRICS} yet (no step logged): the lesson has no curves")
        return pd.DataFrame({"step": pd.Series([], dtype=float)})
    try:
        raw = runlog.read_metrics(run_dir)
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        raise DataError(f"{where} is damaged ({one_line(err)})") from None
    if raw.empty and not len(raw.columns):
        return pd.DataFrame({"step": pd.Series([], dtype=float)})
    if "step" not in raw.columns:
        raise DataError(
            f"{where} is damaged (no step column; its header is {', '.join(map(str, raw.columns))[:120]})"
        )
    numbers = raw.apply(pd.to_numeric, errors="coerce").astype(float)
    bad_steps = numbers["step"].isna() | (numbers["step"] % 1 != 0)
    if bad_steps.any():
        row = int(bad_steps.to_numpy().argmax()) + 2  # 1-based, after the header
        raise DataError(
            f"{where} is damaged (line {row}: step {raw['step'].iloc[row - 2]!r} is not a whole number)"
        )
    lost = int((numbers.isna() & raw.notna()).to_numpy().sum())
    if lost:
        warnings.append(f"{where}: {lost} cell(s) are not numbers and are left out")
    return numbers.sort_values("step", kind="stable").reset_index(drop=True)


def _points(run_dir: Path, warnings: list[str]) -> pd.DataFrame | None:
    if not (run_dir / runlog.POINTS).exists():
        return None
    try:
        points = runlog.read_points(run_dir)
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        warnings.append(
            f"{_where(run_dir, runlog.POINTS)} is damaged ({one_line(err)}); the film's points are unlabelled"
        )
        return None
    if not {"text", "label"} <= set(points.columns):
        warnings.append(
            f"{_where(run_dir, runlog.POINTS)} is damaged (no text/label columns); "
            "the film's points are unlabelled"
        )
        return None
    return pd.DataFrame({"text": points["text"].astype(str), "label": points["label"].astype(str)})
