"""What a run shows as pictures: its newest embedding snapshots (the projection worker's work list), its
UMAP film (:class:`engine.jobs.film.Film`), the texts and labels of its points, and what the projection
panel shows now. Everything is read from the run folder; snapshots handed over by a thread runner are kept
as they are."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd

from engine import runlog
from engine.core import settings
from engine.core.errors import DataError
from engine.jobs.film import Film

log = logging.getLogger(__name__)

#: what the projection panel shows: ``(method, step, coords)``, method ``"umap"`` or ``"pca"``
View = tuple[str, int, np.ndarray]


class RunPictures:
    """A run's snapshots in memory, its film, its points and its projection view. Thread-safe."""

    def __init__(self, run_id: str, run_dir: Path):
        self.run_id = run_id
        self.run_dir = Path(run_dir)
        self.film = Film(self.run_dir)
        self.damaged: str | None = None  # a file of this run that could not be read (named), shown beside it
        self._lock = threading.Lock()
        self._snapshots: OrderedDict[int, np.ndarray] = OrderedDict()
        self._points: pd.DataFrame | None = None
        self._pca: tuple[int, np.ndarray] | None = None

    # ---------------------------------------------------------------------------------- snapshots

    def keep_snapshot(self, step: int, snapshot: np.ndarray) -> None:
        """Keep the newest ``keep_snapshots`` snapshots in memory: the projection worker's work list (older
        ones stay on disk)."""
        with self._lock:
            self._snapshots[int(step)] = snapshot
            while len(self._snapshots) > settings.get("keep_snapshots"):
                self._snapshots.popitem(last=False)

    def load_snapshot(self, step: int) -> bool:
        """Read the snapshot of ``step`` from the run folder and keep it; False when it cannot be read."""
        path = runlog.snapshot_path(self.run_dir, step)
        try:
            self.keep_snapshot(step, runlog.load_snapshot(path))
        except (OSError, DataError) as err:
            log.warning("job %s: cannot read snapshot %s: %s", self.run_id, path, err)
            return False
        return True

    def latest_snapshot(self) -> tuple[int, np.ndarray] | None:
        """The newest snapshot kept in memory, with its step."""
        with self._lock:
            if not self._snapshots:
                return None
            step = next(reversed(self._snapshots))
            return step, self._snapshots[step]

    def pending_snapshot(self) -> tuple[int, np.ndarray] | None:
        """The newest snapshot that has no frame yet (older unframed ones are skipped)."""
        latest = self.latest_snapshot()
        if latest is None or latest[0] <= self.film.handled_step:
            return None
        return latest

    # -------------------------------------------------------------------------------------- film

    def frames(self, from_disk: bool) -> dict[int, np.ndarray]:
        """UMAP frames by step (those on disk included, for a run attached from disk: ``from_disk``)."""
        if from_disk:
            self.film.load_from_disk()
        return self.film.frames()

    def last_frame(self, from_disk: bool = False) -> tuple[int, np.ndarray] | None:
        """The newest UMAP frame, with its step."""
        frames = self.frames(from_disk)
        if not frames:
            return None
        step = max(frames)
        return step, frames[step]

    def missing_film_step(self, max_frames: int) -> int | None:
        """The first of ``max_frames`` evenly spaced snapshot steps on disk without a frame."""
        steps = [step for step, _ in runlog.list_snapshots(self.run_dir)]
        return self.film.missing(steps, max_frames)

    def film_line(self, max_frames: int) -> str | None:
        """While the film is back-filled: "film 12/31 frames · 2/s · 9 s left"; else None."""
        steps = [step for step, _ in runlog.list_snapshots(self.run_dir)]
        return self.film.progress_text(steps, max_frames)

    # ------------------------------------------------------------------------------ points, view

    def forget_points(self) -> None:
        """``points.csv`` was (re)written: read it again at the next :meth:`points`."""
        with self._lock:
            self._points = None

    def points(self) -> pd.DataFrame:
        """Texts and labels of the projected points (``text``, ``label``), from ``points.csv``."""
        with self._lock:
            if self._points is not None:
                return self._points.copy()
        try:
            frame = runlog.read_points(self.run_dir)
        except (OSError, ValueError):
            frame = pd.DataFrame(columns=["text", "label"])
        if len(frame):
            frame["label"] = frame["label"].astype(str)
            with self._lock:
                self._points = frame
        return frame.copy()

    def view(self, from_disk: bool) -> View | None:
        """What the projection panel shows now: the newest UMAP frame, else a PCA of the newest snapshot
        (of those on disk, for a run attached from disk: ``from_disk``)."""
        frame = self.last_frame(from_disk)
        if frame is not None:
            return "umap", frame[0], frame[1]
        latest = self.latest_snapshot()
        if latest is None and from_disk:
            found = runlog.list_snapshots(self.run_dir)
            if found:
                try:
                    latest = (found[-1][0], runlog.load_snapshot(found[-1][1]))
                except DataError as err:  # shown beside this run's panel; other runs are not concerned
                    self.damaged = str(err)
                    return None
        if latest is None:
            return None
        from engine.charts.projection_frames import pca_2d

        if self._pca is None or self._pca[0] != latest[0]:
            self._pca = (latest[0], pca_2d(latest[1]))
        return "pca", self._pca[0], self._pca[1]
