"""Reading a run folder: rows (whole, or followed as they grow), snapshots, points, frames (its spectra:
:mod:`engine.runlog.spectrum`; the run list and a run's state: :mod:`engine.runlog.listing`).

Every reader (the CLI's user, the app that started the run, another app, the app after a restart) reads
here, never from the writer. A damaged file or folder is skipped or reported by name, never taking others
with it. Only regular files are read (:mod:`engine.core.safe_open`): a named pipe never blocks a reader.

A measure renamed since a folder was written reads under its name: an older name of it (its
:attr:`~engine.core.measures.Measure.aliases`, e.g. RankMe's column ``effective_rank`` and summary key
``effective_rank_end``) is renamed here to the measure's own, so every reader sees one name.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISREG
from typing import Any

import numpy as np
import pandas as pd

from engine.core import measures
from engine.core.atomic import write_text_atomic
from engine.core.errors import DataError
from engine.core.safe_open import NotRegularFile, open_regular, read_regular
from engine.runlog.files import FRAMES, METRICS, POINTS, SNAPSHOTS, SUMMARY, read_json

log = logging.getLogger(__name__)


def read_metrics(run_dir: Path) -> pd.DataFrame:
    """The metrics of a run; a torn last line (a kill mid-write) is dropped, never an error; a malformed row
    is skipped and counted in ``frame.attrs["bad_rows"]``. A ``metrics.csv`` that is not a regular file (a
    named pipe) is :class:`~engine.core.safe_open.NotRegularFile`, never a wait."""
    path = Path(run_dir) / METRICS
    try:
        raw = read_regular(path, f"{path.parent.name}/{METRICS}")
    except FileNotFoundError:
        return _counted(pd.DataFrame(), 0)
    return _frame_of(raw[: raw.rfind(b"\n") + 1])


def _frame_of(complete: bytes) -> pd.DataFrame:
    """``metrics.csv`` bytes that end at a line end, parsed: one parser for every reader of the file.

    A malformed row (a hand edit, bytes from elsewhere; see :class:`_RowCheck`) is skipped and counted in
    ``attrs["bad_rows"]``; the rows around it stay."""
    if not complete:
        return _counted(pd.DataFrame(), 0)
    try:
        frame = pd.read_csv(io.BytesIO(complete))
        if all(pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes) and _whole_steps(frame):
            return _counted(frame, 0)  # the usual file: numbers only, nothing to check row by row
    except Exception:  # noqa: BLE001 - any parse failure: read row by row below, skipping the bad ones
        pass
    lines = complete.decode("utf-8", errors="replace").split("\n")
    header, good, bad = lines[0], [], 0
    check = _RowCheck(len(_cells(header)))
    for line in lines[1:]:
        if not line.strip():
            continue
        if check.accept(_cells(line)):
            good.append(line)
        else:
            bad += 1
    if not header.strip():
        return _counted(pd.DataFrame(), bad)
    return _counted(pd.read_csv(io.StringIO("\n".join([header, *good]) + "\n")), bad)


def _counted(frame: pd.DataFrame, bad_rows: int) -> pd.DataFrame:
    """``frame`` with an older measure name among its columns renamed (module docstring) and its count of
    malformed rows in ``attrs["bad_rows"]``."""
    renamed = _renamed_columns(frame.columns)
    if renamed:
        frame = frame.rename(columns=renamed)
    frame.attrs["bad_rows"] = bad_rows
    return frame


def _renamed_columns(columns: Iterable[str]) -> dict[str, str]:
    """``{old: new}`` for the ``columns`` that are older names of a measure
    (:data:`engine.core.measures.ALIASES`) whose own name is not among them (a folder with both keeps both as
    they are)."""
    present = set(columns)
    return {
        c: measures.ALIASES[c]
        for c in present
        if c in measures.ALIASES and measures.ALIASES[c] not in present
    }


def _current_keys(summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` with every key that starts with an older name of a measure (``<alias>`` or
    ``<alias>_…``: ``effective_rank_end``) under the measure's name; a key whose new form is there already is
    left out. The longest alias that fits wins (``probe_effective_rank_end`` is the labelled set's)."""
    aliases = sorted(measures.ALIASES, key=len, reverse=True)

    def current(key: str) -> str:
        alias = next((a for a in aliases if key == a or key.startswith(a + "_")), None)
        return key if alias is None else measures.ALIASES[alias] + key[len(alias) :]

    out: dict[str, Any] = {}
    for key, value in summary.items():
        new = current(key)
        if new == key or new not in summary:
            out[new] = value
    return out


def _whole_steps(frame: pd.DataFrame) -> bool:
    if "step" not in frame or not len(frame):
        return True
    steps = frame["step"]
    return bool(steps.notna().all() and (steps == steps.round()).all())


def _cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line.rstrip("\r")]), [])
    except csv.Error:
        return ["", ""]  # unparseable: no step, so malformed


class _RowCheck:
    """Whether each row of a ``metrics.csv``, read in order, is one the writer could have made: no more cells
    than the header, a whole-number step first, and each cell of the kind (number or text) of the first
    non-empty cell of its column in the rows accepted before it. Streamable: :class:`MetricsTail` and
    :func:`_frame_of` accept the same rows."""

    def __init__(self, width: int):
        self.width = width
        self.numeric: dict[int, bool] = {}

    def accept(self, cells: list[str]) -> bool:
        if not cells or len(cells) > self.width or not isinstance(_cell(cells[0]), int):
            return False
        kinds = {i: not isinstance(_cell(text), str) for i, text in enumerate(cells) if text != ""}
        if any(self.numeric.get(i, kind) != kind for i, kind in kinds.items()):
            return False
        for i, kind in kinds.items():
            self.numeric.setdefault(i, kind)
        return True


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
        self.bad_rows = 0  # malformed rows skipped (see :class:`_RowCheck`)
        self._check: _RowCheck | None = None
        self._identity: tuple[int, int] | None = None
        self._complete = bytearray()  # header and rows read so far: what frame() parses
        self._frame: tuple[int, pd.DataFrame] | None = None

    def read_new(self) -> list[dict[str, Any]]:
        """The rows whose line end was written since the last call (cells as int, float, str or None)."""
        try:
            stat = self.path.stat()
        except OSError:
            return []
        if not S_ISREG(stat.st_mode):  # a named pipe would block the reader: read nothing from it
            return []
        identity = (stat.st_dev, stat.st_ino)
        if self._identity not in (None, identity) or stat.st_size < self.offset:
            self._restart()
        self._identity = identity
        if stat.st_size == self.offset:
            return []
        try:
            with open_regular(self.path) as handle:
                handle.seek(self.offset)
                chunk = handle.read(stat.st_size - self.offset)
        except OSError:
            return []
        chunk = chunk[: chunk.rfind(b"\n") + 1]
        if not chunk:
            return []
        self.offset += len(chunk)
        self._complete += chunk
        lines = [_cells(line) for line in chunk.decode("utf-8", errors="replace").split("\n")[:-1]]
        if self.columns is None:
            renamed = _renamed_columns(lines[0])  # an older measure name: its name now
            self.columns, lines = [renamed.get(column, column) for column in lines[0]], lines[1:]
        usable = [cells for cells in lines if cells and self._usable(cells)]
        self.bad_rows += sum(1 for cells in lines if cells) - len(usable)
        new = [self._record(cells) for cells in usable]
        self.rows.extend(new)
        return new

    def frame(self) -> pd.DataFrame:
        """Every row read so far as :func:`read_metrics` parses it (the same parser, so the same frame)."""
        if self._frame is None or self._frame[0] != len(self._complete):
            self._frame = (len(self._complete), _frame_of(bytes(self._complete)))
        return self._frame[1].copy()

    def _usable(self, cells: list[str]) -> bool:
        if self._check is None:
            self._check = _RowCheck(len(self.columns or []))
        return self._check.accept(cells)

    def _record(self, cells: list[str]) -> dict[str, Any]:
        columns = self.columns or []
        values = [_cell(text) for text in cells] + [None] * (len(columns) - len(cells))
        return dict(zip(columns, values))

    def _restart(self) -> None:
        self.columns, self.rows, self.offset, self._frame = None, [], 0, None
        self._complete = bytearray()
        self.bad_rows, self._check = 0, None
        self.restarts += 1


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
    """``summary.json`` of a run, None while it has none (running, or killed before its end); a key of an
    older measure name reads under the measure's name (RankMe's ``effective_rank_end`` as ``<name>_end``)."""
    try:
        summary = read_json(Path(run_dir) / SUMMARY)
    except (OSError, ValueError):
        return None
    return _current_keys(summary)


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
    """An embedding snapshot as float32 (stored as float32, or float16 with the setting ``snapshot_float16``;
    never unpickled); a damaged file is a DataError that names it."""
    path = Path(path)
    try:
        with open_regular(path, f"{path.parent.name}/{path.name}") as handle:
            array = np.load(handle, allow_pickle=False)
    except NotRegularFile:
        raise
    except (OSError, ValueError, EOFError) as err:
        raise DataError(f"{path.parent.name}/{path.name} is damaged ({' '.join(str(err).split())})") from None
    if array.ndim != 2 or array.dtype.kind != "f":
        raise DataError(
            f"{path.parent.name}/{path.name} is damaged (an array of {array.dtype} of shape {array.shape}, "
            "not n x d numbers)"
        )
    return array.astype(np.float32, copy=False)


def read_points(run_dir: Path) -> pd.DataFrame:
    """The texts and labels of the projected points (none yet: an empty frame); a ``points.csv`` that is
    not a regular file is :class:`~engine.core.safe_open.NotRegularFile`, never a wait."""
    path = Path(run_dir) / POINTS
    try:
        with open_regular(path, f"{path.parent.name}/{POINTS}") as handle:
            return pd.read_csv(handle, keep_default_na=False)
    except FileNotFoundError:
        return pd.DataFrame(columns=["text", "label"])


def frame_path(run_dir: Path, step: int) -> Path:
    """Where the 2-D UMAP frame of ``step`` lives in a run folder."""
    return Path(run_dir) / FRAMES / f"step_{int(step):06d}.csv"


def save_frame(run_dir: Path, step: int, coords: np.ndarray) -> Path:
    """Write a 2-D frame (``x``, ``y`` columns) atomically: a reader never sees half a frame."""
    coords = np.asarray(coords, dtype=np.float32)
    path = frame_path(run_dir, step)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1]})
    write_text_atomic(path, table.to_csv(index=False, float_format="%.5g", lineterminator="\n"))
    return path


def list_frames(run_dir: Path) -> list[tuple[int, Path]]:
    """The frames of a run as ``(step, path)``, by step; files that are not frames are skipped."""
    return _steps_in(Path(run_dir) / FRAMES, ".csv")


def load_frame(path: Path) -> np.ndarray:
    """One frame as an (n, 2) float32 array; raises ``ValueError`` for a file that is not a frame."""
    try:
        with open_regular(path, f"{Path(path).parent.name}/{Path(path).name}") as handle:
            return pd.read_csv(handle)[["x", "y"]].to_numpy(dtype=np.float32)
    except NotRegularFile as err:
        raise ValueError(str(err)) from err
    except (KeyError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"{Path(path).name} is not a frame: {err}") from err
