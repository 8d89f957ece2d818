"""A run folder on disk, written so that a killed process loses nothing before its last step.

Layout of ``<run>/``:
- ``config.json``   the run's settings (written atomically before the first step)
- ``status.json``   ``state`` (running, finished, stopped, failed), pid, times, error (atomic rewrites)
- ``metrics.csv``   one row per logged step, appended with a single ``write`` and flushed per row
- ``summary.json``  final values (atomic, at the end)
- ``points.csv``    the texts and labels of projected points (when snapshots are kept)
- ``snapshots/step_NNNNNN.npy``  embedding snapshots (``np.save``, never pickled)
- ``frames/step_NNNNNN.csv``     2-D UMAP frames of snapshots (``x``, ``y``; written by the app's projector)

A run whose status says ``running`` but whose process is gone reads as ``interrupted``.

The folder is the one source of truth: every reader (the CLI's user, the app that started the run, another
app, the app after a restart) reads rows, points, snapshots and frames from here, never from the writer.
:class:`MetricsTail` follows a ``metrics.csv`` that is still growing.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import os
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)

CONFIG, STATUS, METRICS, SUMMARY, POINTS, SNAPSHOTS, FRAMES = (
    "config.json", "status.json", "metrics.csv", "summary.json", "points.csv", "snapshots", "frames",
)
FINAL_STATES = ("finished", "stopped", "failed")


def write_json_atomic(path: Path, payload: Mapping[str, Any]) -> None:
    """Write JSON to a temporary file in the same folder, fsync, then rename over ``path``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(_jsonable(payload), handle, indent=2, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        value = json.load(handle)
    if not isinstance(value, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _process_start(pid: int) -> str | None:
    """Start time of a process (Linux ``/proc``), so a reused pid is not mistaken for the writer."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid: int | None, start: str | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    current = _process_start(pid)
    return start is None or current is None or current == start


def format_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return "" if not math.isfinite(value) else f"{value:.9g}"
    return str(value)


class RunWriter:
    """Owns one run folder while the run goes on. Not thread-safe: one writer per run."""

    def __init__(self, run_dir: Path, columns: Sequence[str], config: Mapping[str, Any]):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.columns = list(columns)
        self._status: dict[str, Any] = {
            "state": "running",
            "pid": os.getpid(),
            "proc_start": _process_start(os.getpid()),
            "started": time.time(),
            "ended": None,
            "error": None,
            "last_step": None,
        }
        write_json_atomic(self.run_dir / CONFIG, config)
        write_json_atomic(self.run_dir / STATUS, self._status)
        self._fd = os.open(self.run_dir / METRICS, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        self._write_line(self.columns)

    def _write_line(self, cells: Iterable[str]) -> None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(list(cells))
        data = buffer.getvalue().encode("utf-8")
        written = os.write(self._fd, data)  # one write per row: a kill cannot interleave rows
        if written != len(data):  # pragma: no cover - only on a full disk
            raise OSError(f"short write to {self.run_dir / METRICS}")

    def append(self, record: Mapping[str, Any]) -> None:
        """Append one row (missing columns become empty cells); the row is on disk when this returns."""
        self._write_line(format_cell(record.get(column)) for column in self.columns)
        if record.get("step") is not None:
            self._status["last_step"] = record["step"]

    def save_points(self, texts: Sequence[str], labels: Sequence[Any] | None) -> None:
        frame = pd.DataFrame({"text": list(texts)})
        frame["label"] = list(labels) if labels is not None else ""
        tmp = self.run_dir / f".{POINTS}.tmp"
        frame.to_csv(tmp, index=False)
        os.replace(tmp, self.run_dir / POINTS)

    def save_snapshot(self, step: int, embeddings: np.ndarray) -> Path:
        path = snapshot_path(self.run_dir, step)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".{path.stem}.tmp.npy")
        np.save(tmp, np.asarray(embeddings, dtype=np.float32), allow_pickle=False)
        os.replace(tmp, path)
        return path

    def finish(self, state: str, summary: Mapping[str, Any] | None = None, error: str | None = None) -> None:
        """Close the metrics file and record the final state (``finished``, ``stopped`` or ``failed``)."""
        assert state in FINAL_STATES, state
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if summary is not None:
            write_json_atomic(self.run_dir / SUMMARY, summary)
        self._status.update(state=state, ended=time.time(), error=error)
        write_json_atomic(self.run_dir / STATUS, self._status)

    def __del__(self) -> None:  # pragma: no cover - best effort
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)


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
    counts those). Not thread-safe: its owner serialises calls.
    """

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / METRICS
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
    """``running``, ``finished``, ``stopped``, ``failed`` or ``interrupted`` (writer died)."""
    status = read_json(Path(run_dir) / STATUS)
    state = status.get("state", "interrupted")
    if state == "running" and not _alive(status.get("pid"), status.get("proc_start")):
        return "interrupted"
    return state if state in (*FINAL_STATES, "running") else "interrupted"


def load_run_info(run_dir: Path) -> RunInfo:
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
        started=status.get("started"),
        last_step=last_step,
        config=config,
        error=status.get("error"),
    )


def list_runs(root: Path) -> list[RunInfo]:
    """Every readable run under ``root``, newest first; a corrupt or foreign folder is skipped with a warning."""
    root = Path(root)
    if not root.exists():
        return []
    runs = []
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.name.startswith("."):
            continue
        if not (child / CONFIG).exists():
            log.warning("skipping %s: not a run folder (no %s)", child, CONFIG)
            continue
        try:
            runs.append(load_run_info(child))
        except (OSError, ValueError, pd.errors.ParserError, KeyError, TypeError) as err:
            log.warning("skipping run folder %s: %s", child, err)
    runs.sort(key=lambda info: info.started or 0.0, reverse=True)
    return runs


def list_snapshots(run_dir: Path) -> list[tuple[int, Path]]:
    folder = Path(run_dir) / SNAPSHOTS
    if not folder.exists():
        return []
    found = []
    for path in folder.glob("step_*.npy"):
        try:
            found.append((int(path.stem.split("_")[1]), path))
        except (IndexError, ValueError):
            log.warning("skipping unexpected snapshot file %s", path)
    return sorted(found)


def snapshot_path(run_dir: Path, step: int) -> Path:
    """Where the embedding snapshot of ``step`` lives in a run folder."""
    return Path(run_dir) / SNAPSHOTS / f"step_{int(step):06d}.npy"


def load_snapshot(path: Path) -> np.ndarray:
    return np.load(path, allow_pickle=False)


def read_points(run_dir: Path) -> pd.DataFrame:
    path = Path(run_dir) / POINTS
    return pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame(columns=["text", "label"])


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
    folder = Path(run_dir) / FRAMES
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob("step_*.csv"):
        try:
            found.append((int(path.stem.split("_")[1]), path))
        except (IndexError, ValueError):
            log.warning("skipping unexpected frame file %s", path)
    return sorted(found)


def load_frame(path: Path) -> np.ndarray:
    """One frame as an (n, 2) float32 array; raises ``ValueError`` for a file that is not a frame."""
    try:
        return pd.read_csv(path)[["x", "y"]].to_numpy(dtype=np.float32)
    except (KeyError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"{Path(path).name} is not a frame: {err}") from err
