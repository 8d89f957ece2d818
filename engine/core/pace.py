"""A lecture pace: the view plays a run's logged steps over a wall-clock time a class can follow.

A run at full speed shows the demo's 150 updates in about 4 s, too fast to narrate. The pace belongs to the
view, not to the training (issue 58, item 9): the run trains at full speed, and the page's one player
(:class:`Playhead`) shows its rows up to a step that advances by ``steps / seconds`` steps a second, never
faster, and never beyond the newest step logged (a run slower than the pace is shown as its rows come). A
recorded run is played the same way from its folder. Step ``s`` of ``n`` is then shown no earlier than
``s / n`` of :data:`LECTURE_SECONDS` after the player first had a row to show, whenever the training logged
it; the training is never told that a screen shows it (no cue, no signal to its process).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: the time a paced run takes to play (the demo's 150 updates: one every 1/6 s)
LECTURE_SECONDS = 25.0
#: how long the first row stays before the play moves on: a browser draws a payload a while after the server
#: made it (the feed's period, 1 s, and the drawing; 2.3 s from the first row's look to the first points
#: drawn at load 21; 4.7 s and 12 s in the cold-demo browser test under the full suite on 2 cores,
#: 2026-12-07), so that the class sees the run from its start: a lecturer talks over its first point
LEAD_SECONDS = 8.0
#: the same for recorded runs, whose first frame the click's own page run draws (no feed in between)
RECORDED_LEAD_SECONDS = 2.0


@dataclass(frozen=True)
class Pace:
    """``steps`` steps played over ``seconds`` of wall clock, after the first step stayed ``lead`` seconds."""

    steps: int
    seconds: float = LECTURE_SECONDS
    lead: float = LEAD_SECONDS

    @property
    def rate(self) -> float:
        """Steps played a second (``steps / seconds``)."""
        return max(self.steps, 1) / max(self.seconds, 1e-9)

    def due(self, step: int) -> float:
        """Seconds after the start at which ``step`` is shown at the latest: ``seconds * step / steps``."""
        return self.seconds * step / max(self.steps, 1)


@dataclass
class Playhead:
    """The step a view shows of one run: it starts at the first step logged, when first asked with rows,
    stays there ``pace.lead`` seconds, then moves ``pace.rate`` steps a second of ``clock`` (monotonic
    seconds), never beyond the newest step logged and never faster. Thread-safe (the live feed's thread and
    page runs ask)."""

    pace: Pace
    clock: Callable[[], float] = time.monotonic
    _position: float | None = None
    _since: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def started(self) -> bool:
        return self._position is not None

    def at(self, first: int | None, last: int | None) -> int | None:
        """The step shown now of a run whose rows go from step ``first`` to ``last`` (None: no row yet)."""
        if first is None or last is None:
            return None if self._position is None else min(int(self._position), self.pace.steps)
        now = self.clock()
        with self._lock:
            if self._position is None:
                self._position, self._since = float(first), now + self.pace.lead
            elif now > self._since:
                self._position += (now - self._since) * self.pace.rate
                self._since = now
            self._position = min(self._position, float(last))  # never beyond the rows logged
            return int(math.floor(self._position + 1e-9))

    def done(self, last: int | None) -> bool:
        """Whether it shows ``last``, the run's final step (it has nothing more to play)."""
        return self._position is not None and last is not None and self._position + 1e-9 >= last
