"""A run folder on disk, written so that a killed process loses nothing before its last step.

Layout of ``<run>/``:
- ``config.json``   the run's settings (written atomically before the first step)
- ``status.json``   ``state`` (running, finished, stopped, failed), pid, times, error (atomic rewrites)
- ``metrics.csv``   one row per logged step, appended with a single ``write`` and flushed per row
- ``summary.json``  final values (atomic, at the end)
- ``points.csv``    the texts and labels of projected points (when snapshots are kept)
- ``snapshots/step_NNNNNN.npy``  embedding snapshots (``np.save``, never pickled)

A run whose status says ``running`` but whose process is gone reads as ``interrupted``.
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

CONFIG, STATUS, METRICS, SUMMARY, POINTS, SNAPSHOTS = (
    "config.json", "status.json", "metrics.csv", "summary.json", "points.csv", "snapshots",
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
    if not raw:
        return pd.DataFrame()
    if not raw.endswith(b"\n"):
        raw = raw[: raw.rfind(b"\n") + 1]
    if not raw:
        return pd.DataFrame()
    return pd.read_csv(io.BytesIO(raw))


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
