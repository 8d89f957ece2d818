"""A lecture pace: a run's logged steps spread over a wall-clock time a class can follow.

A run at full speed shows the demo's 150 updates in about 4 s, too fast to narrate. With a pace, step ``s``
of ``n`` is logged no earlier than ``s / n`` of :data:`LECTURE_SECONDS` after the first step: the loop waits
*between* steps (on the run's stop event, so ■ Stop stays immediate), and never inside one, so the training
itself (and a benchmark of it, which runs without a pace) is unchanged. A run slower than the pace is not
slowed: its steps are already late. The waits are left out of the run's ``seconds`` column
(:meth:`Pace.waited`), which keeps measuring training time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: the time a paced run takes at least (the demo's 150 updates: one every 1/6 s)
LECTURE_SECONDS = 25.0


@dataclass
class Pace:
    """Waits before logged steps so that step ``s`` of ``steps`` comes at ``s / steps * seconds`` after
    step 0. ``clock`` (seconds, monotonic) and ``wait(seconds) -> stopped`` are injectable (tests)."""

    steps: int
    seconds: float = LECTURE_SECONDS
    clock: Callable[[], float] = time.monotonic
    wait: Callable[[float], bool] = threading.Event().wait
    _start: float | None = None
    waited: float = 0.0

    def due(self, step: int) -> float:
        """Seconds after step 0 at which ``step`` is due."""
        return self.seconds * step / max(self.steps, 1)

    def before(self, step: int) -> bool:
        """Wait until ``step`` is due (step 0 starts the clock); True when the wait was ended by a stop."""
        now = self.clock()
        if self._start is None:
            self._start = now
        delay = self._start + self.due(step) - now
        if delay <= 0:
            return False
        stopped = self.wait(delay)
        self.waited += max(0.0, self.clock() - now)
        return bool(stopped)


def lecture_pace(on: bool, steps: int, stop: threading.Event) -> Pace | None:
    """The pace of a run whose lecture-pace switch is ``on`` (waiting on its ``stop``), else None."""
    return Pace(steps, wait=stop.wait) if on else None
