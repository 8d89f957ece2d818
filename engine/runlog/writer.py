"""The one writer of a run folder: rows (and spectra) appended whole, snapshots and points atomic, the state
recorded at the end even on a full disk, and a lock so that two processes never write one folder at once."""

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

from engine.errors import ConfigError
from engine.runlog.files import (
    CONFIG,
    FINAL_STATES,
    METRICS,
    POINTS,
    SPECTRUM,
    STATUS,
    SUMMARY,
    format_cell,
    write_json_atomic,
    write_json_in_place,
)
from engine.runlog.liveness import WriterLock, process_start
from engine.runlog.reading import snapshot_path

log = logging.getLogger(__name__)


LOCK_TRIES = 40  # a reader probing the lock holds it for microseconds: retry a moment before refusing


class RunWriter:
    """Owns one run folder while the run goes on. Not thread-safe: one writer per run.

    The folder's lock is taken before anything is written: a second process writing the same folder (two
    ``--force`` runs on one ``--out``) gets a one-line ConfigError and the first run's rows stay whole.
    """

    def __init__(self, run_dir: Path, columns: Sequence[str], config: Mapping[str, Any]):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.run_dir)
        if not any(self._lock.acquire() or time.sleep(0.025) for _ in range(LOCK_TRIES)):
            raise ConfigError(
                f"{self.run_dir}: another process is writing a run into this folder; "
                "choose another folder or stop that run first"
            )
        self.columns = list(columns)
        self._fd: int | None = None
        self._spectrum_fd: int | None = None
        self._spectrum_width: int | None = None
        self._status: dict[str, Any] = {
            "state": "running",
            "pid": os.getpid(),
            "proc_start": process_start(os.getpid()),
            "started": time.time(),
            "ended": None,
            "error": None,
            "last_step": None,
        }
        try:
            write_json_atomic(self.run_dir / CONFIG, config)
            write_json_atomic(self.run_dir / STATUS, self._status)
            (self.run_dir / SPECTRUM).unlink(
                missing_ok=True
            )  # an earlier run's (--force); made at its first row
            self._fd = _open_log(self.run_dir / METRICS)
            self._write_line(self.columns)
        except BaseException:
            self._lock.release()
            raise

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
        """Append the spectrum of ``step`` to ``spectrum.csv`` (its header ``step,lambda_1,...,lambda_d`` comes
        with the first one); the row is on disk when this returns. Every spectrum of a run has one length."""
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
        tmp = self.run_dir / f".{POINTS}.tmp"
        with _removed_on_failure(tmp):
            frame.to_csv(tmp, index=False)
            os.replace(tmp, self.run_dir / POINTS)

    def save_snapshot(self, step: int, embeddings: np.ndarray) -> Path:
        path = snapshot_path(self.run_dir, step)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f".{path.stem}.tmp.npy")
        with _removed_on_failure(tmp):
            np.save(tmp, np.asarray(embeddings, dtype=np.float32), allow_pickle=False)
            os.replace(tmp, path)
        return path

    def finish(self, state: str, summary: Mapping[str, Any] | None = None, error: str | None = None) -> None:
        """Close the metrics file and record the final state (``finished``, ``stopped`` or ``failed``).

        On a full disk the summary may be lost, but the state is still recorded: ``status.json`` is then
        rewritten in place (its blocks already exist), so the run never stays ``running``.
        """
        assert state in FINAL_STATES, state
        self._close_logs()
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
            self._lock.release()

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


def _open_log(path: Path) -> int:
    """An append-only file descriptor on ``path``, emptied first (a log written one ``write`` per row)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)


@contextlib.contextmanager
def _removed_on_failure(tmp: Path):
    """A temporary file that a failed write (a full disk) must not leave behind."""
    try:
        yield
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
