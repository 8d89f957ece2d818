"""The one writer of a run folder: rows (and spectra) appended whole, snapshots and points atomic, the state
recorded at the end even on a full disk, and a lock so that two processes never write one folder at once.
Snapshots are stored as float32 (float16 with a setting: :func:`compact`); readers get float32.

A folder that already holds a run (``--force``) is replaced whole: the new run is started in a hidden sibling
folder and swapped in atomically (:func:`~engine.runlog.swap.exchange`), so a reader, or a kill at any moment,
sees the old run or the new one, never the new rows beside the old snapshots. Snapshots stop, with a warning
in the status and the summary, at the setting ``snapshot_cap_mb`` or on a full disk; the rows go on.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import logging
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine.core import paths, settings
from engine.core.atomic import write_text_atomic
from engine.core.errors import ConfigError
from engine.runlog.files import (
    CONFIG,
    METRICS,
    POINTS,
    SPECTRUM,
    STATUS,
    SUMMARY,
    format_cell,
    is_disk_full,
    write_json_atomic,
    write_json_in_place,
)
from engine.runlog.liveness import WriterLock, process_start
from engine.runlog.ownership import foreign_entries
from engine.runlog.reading import snapshot_path
from engine.runlog.states import FINAL_STATES, RunState
from engine.runlog.swap import exchange, holds_run, remove_tree, sweep_aside

log = logging.getLogger(__name__)


LOCK_TRIES = 40  # a reader probing the lock holds it for microseconds: retry a moment before refusing


class RunWriter:
    """Owns one run folder while the run goes on. Not thread-safe: one writer per run.

    The folder's lock is taken before anything is written: a second process writing the same folder (two
    ``--force`` runs on one ``--out``) gets a one-line ConfigError and the first run's rows stay whole.
    """

    def __init__(self, run_dir: Path, columns: Sequence[str], config: Mapping[str, Any]):
        self.run_dir = Path(run_dir)
        paths.no_link_here(run_dir, what="a run")  # never written through a linked folder (issue 55)
        _make_folder(self.run_dir)
        self._lock = _locked(self.run_dir)
        self.columns = list(columns)
        self._fd: int | None = None
        self._spectrum_fd: int | None = None
        self._spectrum_width: int | None = None
        self._snapshot_bytes = 0
        self._snapshots_stopped = False
        self.warnings: list[str] = []
        self._status: dict[str, Any] = {
            "state": RunState.RUNNING,
            "pid": os.getpid(),
            "proc_start": process_start(os.getpid()),
            "started": time.time(),
            "ended": None,
            "error": None,
            "last_step": None,
        }
        try:
            sweep_aside(self.run_dir)
            if holds_run(self.run_dir):
                _refuse_foreign(self.run_dir)
                self._replace(config)
            else:
                self._start_in(self.run_dir, config)
        except BaseException:
            self._close_logs()
            self._lock.release(remove=True)
            raise

    def _start_in(self, folder: Path, config: Mapping[str, Any]) -> None:
        """The run's first files in ``folder``: config, status, the metrics header (spectra: at the first)."""
        write_json_atomic(folder / CONFIG, config)
        write_json_atomic(folder / STATUS, self._status)
        self._fd = _open_log(folder / METRICS)
        self._write_line(self.columns)

    def _replace(self, config: Mapping[str, Any]) -> None:
        """Start the run in a hidden sibling folder, then swap it with the old run's folder in one step and
        remove the old one: the folder holds the old run or the new one, never a mix."""
        real = self.run_dir.resolve()
        aside = real.parent / f".{real.name}.aside-{os.urandom(4).hex()}"
        aside.mkdir()
        new_lock = WriterLock(aside)
        new_lock.acquire()
        try:
            self._start_in(aside, config)
            exchange(aside, real)  # now ``real`` holds the new run and ``aside`` the old one
        except BaseException:
            new_lock.release()
            remove_tree(aside)
            raise
        old_lock, self._lock = self._lock, new_lock
        new_lock.path, old_lock.path = real / new_lock.path.name, aside / old_lock.path.name  # swapped too
        old_lock.release()
        remove_tree(aside)

    def _write_line(self, cells: Iterable[str], fd: int | None = None, name: str = METRICS) -> None:
        fd = self._fd if fd is None else fd
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(list(cells))
        data = buffer.getvalue().encode("utf-8")
        written = os.write(fd, data)  # one write per row: a kill cannot interleave rows
        if written != len(data):  # only on a full disk: take the torn part back so the file stays whole
            with contextlib.suppress(OSError):
                os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_END) - written)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.run_dir / name))

    def append(self, record: Mapping[str, Any]) -> None:
        """Append one row (missing columns become empty cells); the row is on disk when this returns."""
        self._write_line(format_cell(record.get(column)) for column in self.columns)
        if record.get("step") is not None:
            self._status["last_step"] = record["step"]

    def append_spectrum(self, step: int, eigenvalues: np.ndarray) -> None:
        """Append the spectrum of ``step`` to ``spectrum.csv`` (its header ``step,lambda_1,...,lambda_d``
        comes with the first one); the row is on disk when this returns. Every spectrum of a run has one
        length."""
        values = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
        if self._spectrum_fd is None:
            self._spectrum_fd = _open_log(self.run_dir / SPECTRUM)
            self._spectrum_width = len(values)
            header = ["step", *(f"lambda_{k}" for k in range(1, len(values) + 1))]
            self._write_line(header, self._spectrum_fd, SPECTRUM)
        elif len(values) != self._spectrum_width:
            raise ValueError(f"a spectrum of {len(values)} values after spectra of {self._spectrum_width}")
        self._write_line([str(int(step)), *map(format_cell, values.tolist())], self._spectrum_fd, SPECTRUM)

    def save_points(self, texts: Sequence[str], labels: Sequence[Any] | None) -> None:
        frame = pd.DataFrame({"text": list(texts)})
        frame["label"] = list(labels) if labels is not None else ""
        write_text_atomic(self.run_dir / POINTS, frame.to_csv(index=False, lineterminator="\n"))

    def save_snapshot(self, step: int, embeddings: np.ndarray) -> Path | None:
        """Write the snapshot of ``step`` atomically; None once snapshots stopped: at the run's snapshot cap
        (setting ``snapshot_cap_mb``) or on a full disk, with a warning in the status and the summary."""
        if self._snapshots_stopped:
            return None
        data = _npy_bytes(compact(embeddings))
        cap_mb = float(settings.get("snapshot_cap_mb"))
        if self._snapshot_bytes + len(data) > cap_mb * 2**20:
            self._stop_snapshots(
                f"snapshot cap reached: {self._snapshot_bytes / 2**20:,.1f} MB written, the cap is "
                f"{cap_mb:g} MB a run (setting snapshot_cap_mb); no snapshots from step {int(step)} on, "
                "the rows go on"
            )
            return None
        path = snapshot_path(self.run_dir, step)
        tmp = path.with_name(f".{path.stem}.tmp.npy")
        try:
            path.parent.mkdir(exist_ok=True)
            with _removed_on_failure(tmp):
                _write_file(tmp, data)
                os.replace(tmp, path)
        except OSError as err:
            if not (is_disk_full(err) or (err.errno is None and _free_bytes(self.run_dir) < len(data))):
                raise
            self._stop_snapshots(
                f"disk full: no space left for the snapshot of step {int(step)}; no snapshots from there "
                "on, the rows go on"
            )
            return None
        self._snapshot_bytes += len(data)
        return path

    def _stop_snapshots(self, warning: str) -> None:
        self._snapshots_stopped = True
        self.warnings.append(warning)
        self._status["warnings"] = list(self.warnings)
        log.warning("%s: %s", self.run_dir, warning)
        with contextlib.suppress(OSError):  # on a full disk the warning reaches the status at the end
            write_json_atomic(self.run_dir / STATUS, self._status)

    def finish(
        self, state: RunState, summary: Mapping[str, Any] | None = None, error: str | None = None
    ) -> None:
        """Close the metrics file and record the final state (``finished``, ``stopped`` or ``failed``).

        On a full disk the summary may be lost, but the state is still recorded: ``status.json`` is then
        rewritten in place (its blocks already exist), so the run never stays ``running``.
        """
        assert state in FINAL_STATES, state
        self._close_logs()
        if summary is not None and self.warnings:
            summary = {**summary, "warnings": list(self.warnings)}
        try:
            if summary is not None:
                try:
                    write_json_atomic(self.run_dir / SUMMARY, summary)
                except OSError as err:
                    log.warning("cannot write the summary of %s: %s", self.run_dir, err)
            self._status.update(state=state, ended=time.time(), error=error)
            try:
                write_json_atomic(self.run_dir / STATUS, self._status)
            except OSError:
                write_json_in_place(self.run_dir / STATUS, self._status)
        finally:
            self._lock.release(remove=True)  # a run that ended leaves no lock file

    def _close_logs(self) -> None:
        for name in ("_fd", "_spectrum_fd"):
            fd = getattr(self, name, None)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)

    def __del__(self) -> None:  # pragma: no cover - best effort
        self._close_logs()
        if getattr(self, "_lock", None) is not None:
            self._lock.release()


def _refuse_foreign(run_dir: Path) -> None:
    """A run is replaced by swapping its whole folder aside and removing it: never over files the lab did
    not write (issue 47; the CLI's ``--out`` refuses them first, this guards every other caller)."""
    foreign = foreign_entries(run_dir)
    if foreign:
        raise ConfigError(
            f"{run_dir}: holds files the lab did not write ({', '.join(foreign[:3])}); "
            "a run replaces only a run"
        )


def _make_folder(run_dir: Path) -> None:
    """``run_dir`` and its parents; a folder that cannot be written is one ConfigError line naming it."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        refusal = paths.not_writable(err, Path(err.filename or run_dir))
        if refusal is None:
            raise
        raise refusal from None


def _locked(run_dir: Path) -> WriterLock:
    """The folder's writer lock, or ConfigError when another live process holds it (or it cannot be made)."""
    lock = WriterLock(run_dir)
    try:
        taken = any(lock.acquire() or time.sleep(0.025) for _ in range(LOCK_TRIES))
    except OSError as err:
        refusal = paths.not_writable(err, run_dir)
        if refusal is None:
            raise
        raise refusal from None
    if not taken:
        raise ConfigError(
            f"{run_dir}: another process is writing a run into this folder; "
            "choose another folder or stop that run first"
        )
    return lock


#: the largest magnitude float16 holds (a snapshot with a larger value is kept as float32)
FLOAT16_MAX = float(np.finfo(np.float16).max)


def compact(embeddings: np.ndarray, half: bool | None = None) -> np.ndarray:
    """A snapshot as it is stored: float32, exact, so that a measure recomputed from it equals the logged one;
    float16 with ``half`` (default: the setting ``snapshot_float16``): half the bytes and a relative error of
    at most 2^-11 per value, which moves IsoScore of sentence embeddings by up to about 1 % (their small
    covariance eigenvalues gain rounding noise), float32 still where a value lies beyond float16's range."""
    values = np.asarray(embeddings, dtype=np.float32)
    if not (settings.get("snapshot_float16") if half is None else half):
        return values
    finite = values[np.isfinite(values)]
    if finite.size and float(np.abs(finite).max()) > FLOAT16_MAX:
        return values
    return values.astype(np.float16)


def _npy_bytes(array: np.ndarray) -> bytes:
    """``array`` in the ``.npy`` format (never pickled)."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file with ``os.write``: a full disk is an ``OSError`` with ``ENOSPC`` (numpy's
    own writer reports a short write with no errno)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _free_bytes(folder: Path) -> int:
    """Bytes free for an unprivileged writer on the file system of ``folder`` (a large number if unknown)."""
    try:
        stats = os.statvfs(folder)
    except (OSError, AttributeError):
        return 2**62
    return stats.f_bavail * stats.f_frsize


def _open_log(path: Path) -> int:
    """An append-only file descriptor on ``path``, emptied first (a log written one ``write`` per row)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW, 0o644)


@contextlib.contextmanager
def _removed_on_failure(tmp: Path):
    """A temporary file that a failed write (a full disk) must not leave behind."""
    try:
        yield
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
