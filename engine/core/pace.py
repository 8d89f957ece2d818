"""A lecture pace: the view plays a run's logged steps over a wall-clock time a class can follow.

A run at full speed shows the demo's 150 updates in about 4 s, too fast to narrate. The pace belongs to the
view, not to the training (issue 58, item 9): the run trains at full speed, and the page's one player
(:class:`Playhead`) shows its rows up to a step that advances by ``steps / seconds`` steps a second, never
faster, and never beyond the newest step logged (a run slower than the pace is shown as its rows come). A
recorded run is played the same way from its folder.

A live run's playhead holds its first row until a browser says it drew it (:meth:`Playhead.cue`: the live
view's ``drawn`` trigger, browser to server, handled by :func:`ui.player.cue`), then :data:`LEAD_SECONDS`
more, then moves: step ``s`` of ``n`` is shown no earlier than ``s / n`` of :data:`LECTURE_SECONDS` after
that. Without a cue (no browser, a tab closed) it starts by itself :data:`CUE_WAIT_SECONDS` after its first
look. The training is never told that a screen shows it (no signal to its process, nothing it waits for).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: the time a paced run takes to play (the demo's 150 updates: one every 1/6 s)
LECTURE_SECONDS = 25.0
#: how long the first row stays after the browser said it drew it: the class sees the first point before the
#: curve grows, and the next payload is a feed period (live_seconds, 1 s) away anyway, so a shorter lead
#: would show step 0, then step 6 at once
LEAD_SECONDS = 1.0
#: how long a live run's first row waits for the browser's cue at most, from the server's first look at it;
#: then the play starts by itself (no browser: AppTest, a tab closed before it drew). Longer than the slowest
#: first drawing seen (12 s from the first look, the cold-demo browser test under the full suite on 2 cores,
#: 2026-12-07), so that a slow browser's cue still comes first
CUE_WAIT_SECONDS = 15.0
#: how long the first row of a recorded play stays: the click's own page run draws its first frame (no feed
#: in between), and it waits for no cue
RECORDED_LEAD_SECONDS = 2.0


@dataclass(frozen=True)
class Pace:
    """``steps`` steps played over ``seconds`` of wall clock, after the first step stayed ``lead`` seconds
    from the cue; ``cue_wait``: how long the first step waits for a cue at most (0: none awaited, the
    ``lead`` counts from the first look)."""

    steps: int
    seconds: float = LECTURE_SECONDS
    lead: float = LEAD_SECONDS
    cue_wait: float = CUE_WAIT_SECONDS

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
    and stays there until :meth:`cue` and ``pace.lead`` seconds more (or ``pace.cue_wait`` seconds after
    that first look without a cue), then moves ``pace.rate`` steps a second of ``clock`` (monotonic
    seconds), never beyond the newest step logged and never faster. Thread-safe (the live feed's thread,
    page runs and the cue's callback ask)."""

    pace: Pace
    clock: Callable[[], float] = time.monotonic
    _position: float | None = None
    _since: float = 0.0  # the play moves from here on (later: it holds its step until then)
    _cued: float | None = None  # when the cue came (it may come before the first look)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def started(self) -> bool:
        """Whether it has a row to show (it may still hold it)."""
        return self._position is not None

    def at(self, first: int | None, last: int | None) -> int | None:
        """The step shown now of a run whose rows go from step ``first`` to ``last`` (None: no row yet)."""
        if first is None or last is None:
            return None if self._position is None else min(int(self._position), self.pace.steps)
        now = self.clock()
        with self._lock:
            if self._position is None:
                self._position, self._since = float(first), self._start(now)
            elif now > self._since:
                self._position += (now - self._since) * self.pace.rate
                self._since = now
            self._position = min(self._position, float(last))  # never beyond the rows logged
            return int(math.floor(self._position + 1e-9))

    def _start(self, looked: float) -> float:
        """When the play moves, first looked at ``looked``: ``lead`` after the cue, else the wait's end."""
        if self._cued is not None:
            return max(looked, self._cued) + self.pace.lead
        return looked + max(self.pace.cue_wait, self.pace.lead)

    def cue(self) -> None:
        """A browser drew the first row: the play moves ``pace.lead`` seconds from now (unless it already
        moves, or would sooner). A second cue (another tab) changes nothing."""
        now = self.clock()
        with self._lock:
            if self._cued is not None:
                return
            self._cued = now
            if self._position is not None and now < self._since:
                self._since = min(self._since, now + self.pace.lead)

    def waiting(self) -> bool:
        """Whether it holds its first row for a cue now (the live view names the run ``unseen``)."""
        return (
            self._position is not None
            and self._cued is None
            and self.pace.cue_wait > 0
            and self.clock() < self._since
        )

    def done(self, last: int | None) -> bool:
        """Whether it shows ``last``, the run's final step (it has nothing more to play)."""
        return self._position is not None and last is not None and self._position + 1e-9 >= last
