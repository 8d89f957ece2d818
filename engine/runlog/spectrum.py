"""A run's covariance spectra (``spectrum.csv``): read whole (:func:`read_spectrum`, a :class:`Spectra`) or
followed as the file grows (:class:`SpectrumTail`, as :class:`engine.runlog.reading.MetricsTail` follows
``metrics.csv``). A torn last line (a kill mid-write) is dropped; a damaged file is a DataError that names it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.core.errors import DataError
from engine.core.safe_open import read_regular
from engine.runlog.files import SPECTRUM
from engine.runlog.reading import MetricsTail


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
        raw = read_regular(path, f"{path.parent.name}/{SPECTRUM}")
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

    def _usable(self, cells: list[str]) -> bool:
        return True  # a damaged spectrum row is a DataError that names the file (see _record)

    def _record(self, cells: list[str]) -> tuple[int, np.ndarray]:  # type: ignore[override]
        try:
            return _spectrum_row(cells)
        except ValueError as err:
            where = f"{self.path.parent.name}/{SPECTRUM}"
            raise DataError(f"{where} is damaged ({' '.join(str(err).split())})") from None
