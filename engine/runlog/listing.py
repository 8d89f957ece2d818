"""The run list: every run folder under a root, newest first, and the folders that could not be read as runs,
each with its reason (a page shows them and offers to delete them).

One folder's damage stays with that folder: a folder that may not be read (mode 000), a named pipe in place of
a file, a malformed row, a start time from the future or a link never hides, blocks or reorders the others.
A link to a run inside the root is listed once (as the folder it points to); a link out of the root is never
followed (it is named as damaged).

Listing again costs what changed: each file read for the list (``config.json``, ``status.json``,
``metrics.csv``) is kept with its identity (inode, mode, size, modification and change times) and read again
only when that differs; the liveness of a running run's writer is checked every time.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import math
import os
import shutil
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.errors import EmbedlabError
from engine.runlog import naming
from engine.runlog.files import CONFIG, METRICS, STATUS, read_json
from engine.runlog.liveness import writer_alive
from engine.runlog.reading import read_metrics
from engine.runlog.states import FINAL_STATES, RunState

log = logging.getLogger(__name__)


@dataclass
class RunInfo:
    """What the run list shows about one run folder; ``bad_rows``: malformed rows of its ``metrics.csv``
    that were skipped (see :func:`engine.runlog.read_metrics`)."""

    path: Path
    name: str
    kind: str
    state: RunState
    started: float | None
    last_step: int | None
    config: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    bad_rows: int = 0
    run_name: str = ""  # the run's readable name (engine.runlog.naming): stored, else generated


@dataclass(frozen=True)
class DamagedRun:
    """A folder under the runs root that could not be read as a run, and why (shown by name)."""

    name: str
    reason: str
    path: Path | None = None


def run_state(run_dir: Path) -> RunState:
    """``running``, ``finished``, ``stopped``, ``failed`` or ``interrupted`` (the writer died, or the status
    is not one the lab writes)."""
    return _state(Path(run_dir), read_json(Path(run_dir) / STATUS))


def _state(run_dir: Path, status: dict[str, Any]) -> RunState:
    state = status.get("state", RunState.INTERRUPTED)
    if state == RunState.RUNNING and not writer_alive(run_dir, status):
        return RunState.INTERRUPTED
    return RunState(state) if state in (*FINAL_STATES, RunState.RUNNING) else RunState.INTERRUPTED


class FileMemo:
    """What was read of each file, kept while the file is the same: a regular file whose identity (device,
    inode, mode, size, modification and change times) is unchanged is not read again. Anything else (a file
    that is missing, cannot be looked at or is not regular) is read every time, so its error stays the
    reader's, and so is a file changed within :data:`SETTLED_NS`. Thread-safe; ``reads`` counts the reads
    done."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, Path], tuple[tuple[int, ...], Any]] = {}
        self._lock = threading.Lock()
        self.reads = 0

    def get(self, path: Path, what: str, read: Any) -> Any:
        """``read(path)``, or what it gave the last time for this ``path`` and ``what`` if the file is the
        same (a deep copy: the caller may change it)."""
        try:
            found = os.stat(path)
        except OSError:
            found = None
        if found is None or not stat.S_ISREG(found.st_mode):
            self.reads += 1
            return read(path)
        identity = (
            found.st_dev,
            found.st_ino,
            found.st_mode,
            found.st_size,
            found.st_mtime_ns,
            found.st_ctime_ns,
        )
        with self._lock:
            kept = self._kept.get((what, path))
        settled = time.time_ns() - max(found.st_mtime_ns, found.st_ctime_ns) > SETTLED_NS
        if kept is not None and kept[0] == identity and settled:
            return copy.deepcopy(kept[1])
        self.reads += 1
        value = read(path)
        with self._lock:
            self._kept[(what, path)] = (identity, copy.deepcopy(value))
        return value

    def forget(self, root: Path, keep: set[Path]) -> None:
        """Drop what was kept of the files of folders under ``root`` other than ``keep`` (runs deleted
        since, damaged folders)."""
        with self._lock:
            for key in [key for key in self._kept if key[1].parent.parent == root]:
                if key[1].parent not in keep:
                    del self._kept[key]


#: a file changed less than this long ago is read again even when its identity is the same: a file's times
#: move in coarse ticks, so a rewrite of the same size within one tick (its inode reused) would look unchanged
#: (git's "racy clean" entries, the same cure)
SETTLED_NS = 2_000_000_000
#: the reads of the run list, kept between listings (one per process)
MEMO = FileMemo()


def _last_step_and_bad_rows(metrics_path: Path) -> tuple[int | None, int]:
    metrics = read_metrics(metrics_path.parent)
    last_step = int(metrics["step"].iloc[-1]) if "step" in metrics and len(metrics) else None
    return last_step, int(metrics.attrs.get("bad_rows", 0))


def load_run_info(run_dir: Path, memo: FileMemo | None = None) -> RunInfo:
    """What the run list shows of one folder; values of the wrong type in its files read as unknown, and a
    start time later than the status file itself (a clock from the future) reads as the status's time.
    ``memo``: keeps what was read of files that did not change since (:class:`FileMemo`)."""
    run_dir = Path(run_dir)
    memo = memo or FileMemo()
    config = memo.get(run_dir / CONFIG, "json", read_json)
    try:
        status = memo.get(run_dir / STATUS, "json", read_json)
        state = _state(run_dir, status)
    except FileNotFoundError:
        status, state = {"state": RunState.INTERRUPTED}, RunState.INTERRUPTED
    last_step, bad_rows = memo.get(run_dir / METRICS, "last step", _last_step_and_bad_rows)
    return RunInfo(
        path=run_dir,
        name=run_dir.name,
        kind=str(config.get("kind", "?")),
        state=state,
        started=_clamped(_time(status.get("started")), run_dir),
        last_step=last_step,
        config=config,
        error=None if status.get("error") is None else str(status.get("error")),
        bad_rows=bad_rows,
        run_name=naming.name_of(config, run_dir.name),
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
                    runs.append(load_run_info(child, MEMO))
                    continue
                reason = f"not a run folder (no {CONFIG})"
            except Exception as err:  # noqa: BLE001 - any damage to one folder stays with that folder
                reason = _reason(err)
        log.warning("skipping run folder %s: %s", child, reason)
        damaged.append(DamagedRun(child.name, reason, child))
    MEMO.forget(Path(root), {info.path for info in runs})
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
