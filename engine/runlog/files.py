"""The run folder's layout and its small files: names, atomic JSON, CSV cells, writes that survive a full
disk."""

from __future__ import annotations

import errno
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

CONFIG, STATUS, METRICS, SUMMARY, POINTS, SNAPSHOTS, FRAMES, ERROR_LOG = (
    "config.json",
    "status.json",
    "metrics.csv",
    "summary.json",
    "points.csv",
    "snapshots",
    "frames",
    "error.log",
)
#: the covariance spectrum of each measured step: ``step,lambda_1,...,lambda_d`` (eigenvalues, descending)
SPECTRUM = "spectrum.csv"
#: files and folders whose presence means a folder holds a run (that a new run must replace whole)
RUN_ENTRIES = (CONFIG, STATUS, METRICS, SPECTRUM, SUMMARY, POINTS, SNAPSHOTS, FRAMES)


def write_json_atomic(path: Path, payload: Mapping[str, Any]) -> None:
    """Write JSON whole or not at all (:func:`engine.core.atomic.write_text_atomic`: a temporary file beside
    it, fsync, rename), readable as the folder's other files are (not a temporary file's 0600)."""
    from engine.core.atomic import write_text_atomic

    write_text_atomic(path, json.dumps(jsonable(payload), indent=2, sort_keys=True))


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a regular file (a named pipe is :class:`~engine.core.safe_open.NotRegularFile`,
    never a wait); ValueError for anything else than an object."""
    from engine.core.safe_open import read_regular

    value = json.loads(read_regular(path, f"{Path(path).parent.name}/{Path(path).name}").decode("utf-8"))
    if not isinstance(value, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return value


def jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return json_scalar(value)


def json_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python number it holds, a non-finite float as None (JSON has no NaN); any
    other value as it is."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


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


def write_json_in_place(path: Path, payload: Mapping[str, Any]) -> None:
    """Overwrite an existing small JSON file in place, compact (last resort on a full disk: rewriting blocks a
    file already has needs no free space, where a new temporary file does)."""
    data = json.dumps(jsonable(payload), sort_keys=True, separators=(",", ":")).encode("utf-8")
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def is_disk_full(err: BaseException) -> bool:
    """An error of a write that found no space (ENOSPC, or a disk quota)."""
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
