"""The run list: every run folder under a root, newest first, and the folders that could not be read as runs,
each with its reason (a page shows them and offers to delete them).

One folder's damage stays with that folder: a folder that may not be read (mode 000), a named pipe in place of
a file, a malformed row, a start time from the future or a link never hides, blocks or reorders the others.
A link to a run inside the root is listed once (as the folder it points to); a link out of the root is never
followed (it is named as damaged).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import EmbedlabError
from engine.runlog.files import CONFIG, FINAL_STATES, STATUS, read_json
from engine.runlog.liveness import writer_alive
from engine.runlog.reading import read_metrics

log = logging.getLogger(__name__)


@dataclass
class RunInfo:
    """What the run list shows about one run folder; ``bad_rows``: malformed rows of its ``metrics.csv``
    that were skipped (see :func:`engine.runlog.read_metrics`)."""

    path: Path
    name: str
    kind: str
    state: str
    started: float | None
    last_step: int | None
    config: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    bad_rows: int = 0


@dataclass(frozen=True)
class DamagedRun:
    """A folder under the runs root that could not be read as a run, and why (shown by name)."""

    name: str
    reason: str
    path: Path | None = None


def run_state(run_dir: Path) -> str:
    """``running``, ``finished``, ``stopped``, ``failed`` or ``interrupted`` (the writer died, or the status
    is not one the lab writes)."""
    return _state(Path(run_dir), read_json(Path(run_dir) / STATUS))


def _state(run_dir: Path, status: dict[str, Any]) -> str:
    state = status.get("state", "interrupted")
    if state == "running" and not writer_alive(run_dir, status):
        return "interrupted"
    return state if state in (*FINAL_STATES, "running") else "interrupted"


def load_run_info(run_dir: Path) -> RunInfo:
    """What the run list shows of one folder; values of the wrong type in its files read as unknown, and a
    start time later than the status file itself (a clock from the future) reads as the status's time."""
    run_dir = Path(run_dir)
    config = read_json(run_dir / CONFIG)
    try:
        status = read_json(run_dir / STATUS)
        state = _state(run_dir, status)
    except FileNotFoundError:
        status, state = {"state": "interrupted"}, "interrupted"
    metrics = read_metrics(run_dir)
    last_step = int(metrics["step"].iloc[-1]) if "step" in metrics and len(metrics) else None
    return RunInfo(
        path=run_dir,
        name=run_dir.name,
        kind=str(config.get("kind", "?")),
        state=state,
        started=_clamped(_time(status.get("started")), run_dir),
        last_step=last_step,
        config=config,
        error=None if status.get("error") is None else str(status.get("error")),
        bad_rows=int(metrics.attrs.get("bad_rows", 0)),
    )


def _time(value: object) -> float | None:
    """A timestamp as written by the lab (seconds since the epoch), else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _clamped(started: float | None, run_dir: Path) -> float | None:
    """``started`` no later than now and than the status file's own time (written after the start)."""
    if started is None:
        return None
    latest = time.time()
    for name in (STATUS, CONFIG):
        with contextlib.suppress(OSError):
            latest = min(latest, (run_dir / name).stat().st_mtime)
            break
    return min(started, latest)


def _reason(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return text if isinstance(err, EmbedlabError) else f"{type(err).__name__}: {text}"


def _candidates(root: Path) -> Iterator[tuple[Path, str | None]]:
    """``(folder, None)`` for each folder under ``root`` to read as a run, ``(entry, reason)`` for an entry
    that is damaged without reading it; real folders first, then links (a link to a folder already listed is
    left out: one run, one row)."""
    try:
        children = sorted(root.iterdir())
    except FileNotFoundError:
        return
    except OSError as err:  # the runs folder itself cannot be read: no run to list, said once in the log
        log.warning("cannot list the runs folder %s: %s", root, err)
        return
    real_root = root.resolve()
    seen: set[Path] = set()
    for link in (False, True):
        for child in children:
            if child.name.startswith(".") or child.is_symlink() != link:
                continue
            try:
                if not child.is_dir():
                    continue
                target = child.resolve()
            except OSError as err:
                yield child, _reason(err)
                continue
            if target != real_root and real_root not in target.parents:
                yield child, "a link to a folder outside the runs folder (not followed)"
            elif target not in seen and target != real_root:
                seen.add(target)
                yield child, None


def _listing(root: Path) -> tuple[list[RunInfo], list[DamagedRun]]:
    runs: list[RunInfo] = []
    damaged: list[DamagedRun] = []
    for child, reason in _candidates(Path(root)):
        if reason is None:
            try:
                if (child / CONFIG).exists():
                    runs.append(load_run_info(child))
                    continue
                reason = f"not a run folder (no {CONFIG})"
            except Exception as err:  # noqa: BLE001 - any damage to one folder stays with that folder
                reason = _reason(err)
        log.warning("skipping run folder %s: %s", child, reason)
        damaged.append(DamagedRun(child.name, reason, child))
    runs.sort(key=lambda info: info.started or 0.0, reverse=True)
    return runs, damaged


def list_runs(root: Path, damaged: list[DamagedRun] | None = None) -> list[RunInfo]:
    """Every readable run under ``root``, newest first. A damaged folder never hides the others: it is
    skipped with a warning and, when ``damaged`` is given, added to it with the reason."""
    runs, found = _listing(Path(root))
    if damaged is not None:
        damaged.extend(found)
    return runs


def damaged_runs(root: Path) -> list[DamagedRun]:
    """The folders under ``root`` that cannot be read as runs, each with its path and the reason."""
    return _listing(Path(root))[1]


def delete_damaged(root: Path, path: Path) -> None:
    """Delete one damaged folder of :func:`damaged_runs` (a link: only the link, never what it points to).
    ValueError for a path outside ``root`` or a folder that is not damaged (a run is deleted elsewhere)."""
    root, path = Path(root), Path(path)
    if path.parent.resolve() != root.resolve() or path.name.startswith("."):
        raise ValueError(f"{path}: outside the runs folder {root}")
    if path.name not in {d.name for d in damaged_runs(root)}:
        raise ValueError(f"{path.name}: not a damaged run folder")
    if path.is_symlink():
        path.unlink()
        return
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)  # a folder made unreadable (mode 000) is emptied once its owner may read it
    shutil.rmtree(path)
