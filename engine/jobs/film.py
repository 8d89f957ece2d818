"""The UMAP frames of one run: kept in memory for drawing, written and read through :mod:`engine.runlog`.

A frame is on disk before it is in memory, so a frame the app has shown is never lost; a run attached from
disk (another server, a restart) finds its frames there.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import numpy as np

from engine import runlog
from engine.runlog.compaction import evenly_spaced
from engine.runlog.events import Meter

log = logging.getLogger(__name__)


class Film:
    """Frames by step, the newest step handled (framed or failed), and the steps whose projection failed."""

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)
        self.error: str | None = None  # the last failed frame's one-line error
        self._frames: dict[int, np.ndarray] = {}
        self._failed: set[int] = set()
        self._handled_step = -1
        self._lock = threading.Lock()
        #: the back-fill's count, rate and time left: made at the first frame seen, so that its rate counts
        #: the frames made since (none until one is timed), not the wait for the first (UMAP's warm-up)
        self._meter: Meter | None = None
        self.clock = time.monotonic

    @property
    def handled_step(self) -> int:
        """The newest step that has a frame or whose frame failed (-1: none)."""
        return self._handled_step

    def add(self, step: int, coords: np.ndarray, save: bool = True) -> None:
        coords = np.asarray(coords, dtype=np.float32)
        if save:  # on disk first: a frame seen in memory is always on disk too
            runlog.save_frame(self.run_dir, step, coords)
        with self._lock:
            self._frames[int(step)] = coords
            self._handled_step = max(self._handled_step, int(step))

    def skip(self, step: int, error: str | None = None) -> None:
        """Mark ``step`` as handled without a frame (its projection failed)."""
        with self._lock:
            self._handled_step = max(self._handled_step, int(step))
            self._failed.add(int(step))
            if error is not None:
                self.error = error

    def frames(self) -> dict[int, np.ndarray]:
        with self._lock:
            return dict(sorted(self._frames.items()))

    def load_from_disk(self) -> None:
        """Add the frames on disk not yet in memory (a run attached from disk, possibly still projected)."""
        with self._lock:
            known = set(self._frames)
        for step, path in runlog.list_frames(self.run_dir):
            if step in known:
                continue
            try:
                coords = runlog.load_frame(path)
            except (OSError, ValueError) as err:
                log.warning("skipping frame %s: %s", path, err)
                continue
            self.add(step, coords, save=False)

    def nearest(self, step: int) -> np.ndarray | None:
        """The frame closest to ``step``, an earlier one preferred: the warm start of a back-filled frame."""
        with self._lock:
            if not self._frames:
                return None
            earlier = [s for s in self._frames if s < step]
            chosen = max(earlier) if earlier else min(self._frames, key=lambda s: abs(s - step))
            return self._frames[chosen]

    def missing(self, steps: list[int], max_frames: int) -> int | None:
        """The first of ``max_frames`` evenly spaced ``steps`` that has neither a frame nor a failure."""
        done = self._handled()
        return next((step for step in evenly_spaced(steps, max_frames) if step not in done), None)

    def progress(self, steps: list[int], max_frames: int) -> tuple[int, int]:
        """(frames handled, frames wanted) of the film of ``steps``: ``max_frames`` evenly spaced ones."""
        chosen, done = evenly_spaced(steps, max_frames), self._handled()
        return sum(step in done for step in chosen), len(chosen)

    def progress_text(self, steps: list[int], max_frames: int) -> str | None:
        """ "film 12/31 frames · 2/s · 9 s left" while frames of the film are still to come, else None. The
        rate and the time left come from the frames made since the first frame was seen: none until a
        frame has been timed (the first frame's wait, UMAP's warm-up, says nothing of the others)."""
        done, total = self.progress(steps, max_frames)
        if done >= total:
            return None
        if done == 0:
            return f"film 0/{total:,} frames"
        if self._meter is None:
            self._meter = Meter("film", "frames", every=0.0, clock=self.clock)
        found = self._meter(done, total)
        return found.phase if found is not None else None

    def _handled(self) -> set[int]:
        with self._lock:
            return set(self._frames) | self._failed
