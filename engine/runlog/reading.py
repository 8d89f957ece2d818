"""Reading a run folder: rows and spectra (whole, or followed as they grow), state, the run list, snapshots,
points, frames.

Every reader (the CLI's user, the app that started the run, another app, the app after a restart) reads
here, never from the writer. A damaged file or folder is skipped or reported by name, never taking others with it.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.runlog.files import (
    CONFIG,
    FINAL_STATES,
    FRAMES,
    METRICS,
    POINTS,
    SNAPSHOTS,
    SPECTRUM,
    STATUS,
    SUMMARY,
    read_json,
)
from engine.runlog.liveness import writer_alive

log = logging.getLogger(__name__)


def read_metrics(run_dir: Path) -> pd.DataFrame:
    """The metrics of a run; a torn last line (a kill mid-write) is dropped, never an error."""
    path = Path(run_dir) / METRICS
    if not path.exists():
        return pd.DataFrame()
    raw = path.read_bytes()
    return _frame_of(raw[: raw.rfind(b"\n") + 1])


def _frame_of(complete: bytes) -> pd.DataFrame:
    """``metrics.csv`` bytes that end at a line end, parsed: one parser for every reader of the file."""
    return pd.read_csv(io.BytesIO(complete)) if complete else pd.DataFrame()


class MetricsTail:
    """Follows a run's ``metrics.csv`` by byte offset while it grows: each :meth:`read_new` reads only the
    bytes added since the last call and returns the rows completed meanwhile.

    Only whole lines count: a row still being written (or torn by a kill) waits for its line end. A file that
    does not exist yet reads as no rows. The header line gives the columns. A file that was replaced or cut
    shorter (a run written again with ``--force``) is followed from its start again (:attr:`restarts`
    counts those). Not thread-safe: its owner serialises calls. ``name``: another file of the folder written
    the same way (:class:`SpectrumTail` follows ``spectrum.csv``).
    """

    def __init__(self, run_dir: Path, name: str = METRICS):
        self.path = Path(run_dir) / name
        self.columns: list[str] | None = None
        self.rows: list[dict[str, Any]] = []  # every row read so far
        self.offset = 0
        self.restarts = 0
        self._identity: tuple[int, int] | None = None
        self._complete = bytearray()  # header and rows read so far: what frame() parses
        self._frame: tuple[int, pd.DataFrame] | None = None

    def read_new(self) -> list[dict[str, Any]]:
        """The rows whose line end was written since the last call (cells as int, float, str or None)."""
        try:
            stat = self.path.stat()
        except OSError:
            return []
        identity = (stat.st_dev, stat.st_ino)
        if self._identity not in (None, identity) or stat.st_size < self.offset:
            self._restart()
        self._identity = identity
        if stat.st_size == self.offset:
            return []
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read(stat.st_size - self.offset)
        except OSError:
            return []
        chunk = chunk[: chunk.rfind(b"\n") + 1]
        if not chunk:
            return []
        self.offset += len(chunk)
        self._complete += chunk
        lines = list(csv.reader(io.StringIO(chunk.decode("utf-8", errors="replace"))))
        if self.columns is None:
            self.columns, lines = lines[0], lines[1:]
        new = [self._record(cells) for cells in lines if cells]
        self.rows.extend(new)
        return new

    def frame(self) -> pd.DataFrame:
        """Every row read so far as :func:`read_metrics` parses it (the same parser, so the same frame)."""
        if self._frame is None or self._frame[0] != len(self._complete):
            self._frame = (len(self._complete), _frame_of(bytes(self._complete)))
        return self._frame[1].copy()

    def _record(self, cells: list[str]) -> dict[str, Any]:
        columns = self.columns or []
        values = [_cell(text) for text in cells] + [None] * (len(columns) - len(cells))
        return dict(zip(columns, values))

    def _restart(self) -> None:
        self.columns, self.rows, self.offset, self._frame = None, [], 0, None
        self._complete = bytearray()
        self.restarts += 1


@dataclass(frozen=True)
class Spectra:
    """The covariance spectra of a run (``spectrum.csv``): ``steps`` (m,) int64 and ``eigenvalues`` (m, d)
    float64, row i the eigenvalues of step ``steps[i]``, largest first (NaN where a value was not finite)."""

    steps: np.ndarray
    eigenvalues: np.ndarray

    def __len__(self) -> int:
        return len(self.steps)

    def at(self, step: int) -> np.ndarray | None:
        """The spectrum of ``step``, None when that step has none."""
        where = np.flatnonzero(self.steps == step)
        return self.eigenvalues[where[-1]] if len(where) else None


def read_spectrum(run_dir: Path) -> Spectra:
    """The spectra of a run (none yet, or no such file: an empty :class:`Spectra`); a torn last line (a kill
    mid-write) is dropped; a damaged file is a DataError that names it."""
    path = Path(run_dir) / SPECTRUM
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _spectra([])
    complete = raw[: raw.rfind(b"\n") + 1]
    try:
        rows = [
            _spectrum_row(cells)
            for cells in list(csv.reader(io.StringIO(complete.decode("utf-8"))))[1:]
            if cells
        ]
        return _spectra(rows)
    except (ValueError, UnicodeDecodeError) as err:
        raise DataError(f"{path.parent.name}/{SPECTRUM} is damaged ({' '.join(str(err).split())})") from None


def _spectrum_row(cells: list[str]) -> tuple[int, np.ndarray]:
    """``step`` and the eigenvalues of one ``spectrum.csv`` line (empty cells: NaN)."""
    return int(cells[0]), np.array([float(c) if c else np.nan for c in cells[1:]], dtype=np.float64)


def _spectra(rows: list[tuple[int, np.ndarray]]) -> Spectra:
    if not rows:
        return Spectra(np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float64))
    if len({len(values) for _, values in rows}) != 1:
        raise ValueError("rows of different lengths")
    return Spectra(np.array([step for step, _ in rows], dtype=np.int64), np.stack([v for _, v in rows]))


class SpectrumTail(MetricsTail):
    """Follows a run's ``spectrum.csv`` by byte offset as :class:`MetricsTail` follows ``metrics.csv``:
    :meth:`read_new` returns the ``(step, eigenvalues)`` completed since the last call, :meth:`spectra`
    everything read so far (restarting when the file is written anew)."""

    def __init__(self, run_dir: Path):
        super().__init__(run_dir, SPECTRUM)

    def read_new(self) -> list[tuple[int, np.ndarray]]:  # type: ignore[override]
        return super().read_new()  # type: ignore[return-value]

    def spectra(self) -> Spectra:
        return _spectra(self.rows)  # type: ignore[arg-type]

    def _record(self, cells: list[str]) -> tuple[int, np.ndarray]:  # type: ignore[override]
        try:
            return _spectrum_row(cells)
        except ValueError as err:
            where = f"{self.path.parent.name}/{SPECTRUM}"
            raise DataError(f"{where} is damaged ({' '.join(str(err).split())})") from None


def _cell(text: str) -> Any:
    """A cell of ``metrics.csv`` as :func:`format_cell` wrote it: empty is None, numbers are numbers."""
    if text == "":
        return None
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def read_summary(run_dir: Path) -> dict[str, Any] | None:
    """``summary.json`` of a run, None while it has none (running, or killed before its end)."""
    try:
        return read_json(Path(run_dir) / SUMMARY)
    except (OSError, ValueError):
        return None


@dataclass
class RunInfo:
    """What the run list shows about one run folder."""

    path: Path
    name: str
    kind: str
    state: str
    started: float | None
    last_step: int | None
    config: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def run_state(run_dir: Path) -> str:
    """``running``, ``finished``, ``stopped``, ``failed`` or ``interrupted`` (the writer died, or the status is
    not one the lab writes)."""
    status = read_json(Path(run_dir) / STATUS)
    state = status.get("state", "interrupted")
    if state == "running" and not writer_alive(Path(run_dir), status):
        return "interrupted"
    return state if state in (*FINAL_STATES, "running") else "interrupted"


def load_run_info(run_dir: Path) -> RunInfo:
    """What the run list shows of one folder; values of the wrong type in its files read as unknown."""
    run_dir = Path(run_dir)
    config = read_json(run_dir / CONFIG)
    status = read_json(run_dir / STATUS) if (run_dir / STATUS).exists() else {"state": "interrupted"}
    state = run_state(run_dir) if (run_dir / STATUS).exists() else "interrupted"
    metrics = read_metrics(run_dir)
    last_step = int(metrics["step"].iloc[-1]) if "step" in metrics and len(metrics) else None
    return RunInfo(
        path=run_dir,
        name=run_dir.name,
        kind=str(config.get("kind", "?")),
        state=state,
        started=_time(status.get("started")),
        last_step=last_step,
        config=config,
        error=None if status.get("error") is None else str(status.get("error")),
    )


def _time(value: object) -> float | None:
    """A timestamp as written by the lab (seconds since the epoch), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


@dataclass(frozen=True)
class DamagedRun:
    """A folder under the runs root that could not be read as a run, and why (shown by name)."""

    name: str
    reason: str


def list_runs(root: Path, damaged: list[DamagedRun] | None = None) -> list[RunInfo]:
    """Every readable run under ``root``, newest first. A damaged folder never hides the others: it is
    skipped with a warning and, when ``damaged`` is given, added to it by name with the reason."""
    root = Path(root)
    if not root.exists():
        return []
    runs = []
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        if not (child / CONFIG).exists():
            reason = f"not a run folder (no {CONFIG})"
        else:
            try:
                runs.append(load_run_info(child))
                continue
            except Exception as err:  # noqa: BLE001 - any damage to one folder stays with that folder
                reason = f"{type(err).__name__}: {' '.join(str(err).split())}"
        log.warning("skipping run folder %s: %s", child, reason)
        if damaged is not None:
            damaged.append(DamagedRun(child.name, reason))
    runs.sort(key=lambda info: info.started or 0.0, reverse=True)
    return runs


def _steps_in(folder: Path, suffix: str) -> list[tuple[int, Path]]:
    """``(step, path)`` of the ``step_NNNNNN<suffix>`` files of a folder, by step; other files are skipped."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"step_*{suffix}"):
        try:
            found.append((int(path.name[len("step_") : -len(suffix)]), path))
        except ValueError:
            log.warning("skipping unexpected file %s", path)
    return sorted(found)


def list_snapshots(run_dir: Path) -> list[tuple[int, Path]]:
    """The embedding snapshots of a run as ``(step, path)``, by step."""
    return _steps_in(Path(run_dir) / SNAPSHOTS, ".npy")


def snapshot_path(run_dir: Path, step: int) -> Path:
    """Where the embedding snapshot of ``step`` lives in a run folder."""
    return Path(run_dir) / SNAPSHOTS / f"step_{int(step):06d}.npy"


def load_snapshot(path: Path) -> np.ndarray:
    """An embedding snapshot (never unpickled); a damaged file is a DataError that names it."""
    path = Path(path)
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise DataError(f"{path.parent.name}/{path.name} is damaged ({' '.join(str(err).split())})") from None
    if array.ndim != 2:
        raise DataError(
            f"{path.parent.name}/{path.name} is damaged (an array of shape {array.shape}, not n x d)"
        )
    return array


def read_points(run_dir: Path) -> pd.DataFrame:
    path = Path(run_dir) / POINTS
    return (
        pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame(columns=["text", "label"])
    )


def frame_path(run_dir: Path, step: int) -> Path:
    """Where the 2-D UMAP frame of ``step`` lives in a run folder."""
    return Path(run_dir) / FRAMES / f"step_{int(step):06d}.csv"


def save_frame(run_dir: Path, step: int, coords: np.ndarray) -> Path:
    """Write a 2-D frame (``x``, ``y`` columns) atomically: a reader never sees half a frame."""
    coords = np.asarray(coords, dtype=np.float32)
    path = frame_path(run_dir, step)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1]}).to_csv(tmp, index=False, float_format="%.5g")
    os.replace(tmp, path)
    return path


def list_frames(run_dir: Path) -> list[tuple[int, Path]]:
    """The frames of a run as ``(step, path)``, by step; files that are not frames are skipped."""
    return _steps_in(Path(run_dir) / FRAMES, ".csv")


def load_frame(path: Path) -> np.ndarray:
    """One frame as an (n, 2) float32 array; raises ``ValueError`` for a file that is not a frame."""
    try:
        return pd.read_csv(path)[["x", "y"]].to_numpy(dtype=np.float32)
    except (KeyError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"{Path(path).name} is not a frame: {err}") from err
