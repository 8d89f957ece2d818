"""A lecture pace: a run's logged steps spread over a wall-clock time a class can follow.

A run at full speed shows the demo's 150 updates in about 4 s, too fast to narrate. With a pace, step ``s``
of ``n`` is logged no earlier than ``s / n`` of :data:`LECTURE_SECONDS` after the first step: the loop waits
*between* steps (on the run's stop event, so ■ Stop stays immediate), and never inside one, so the training
itself (and a benchmark of it, which runs without a pace) is unchanged. A run slower than the pace is not
slowed: its steps are already late. The waits are left out of the run's ``seconds`` column
(:meth:`Pace.waited`), which keeps measuring training time.

A run the app started counts from the moment its first row is on a screen, not from step 0: its stop
event is a :class:`StopSignal`, whose ``shown`` cue the server sets when it first hands a browser a
description with the run's rows (:meth:`engine.jobs.job.Job.mark_shown`; SIGUSR1 to a child process).
Until then the run logs step 0 and waits (at most :data:`SHOWN_WAIT` seconds): on a cold server the page's
first drawing took ~12 s and the class saw the demo from step 59 of 150 (issue 48).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: the time a paced run takes at least (the demo's 150 updates: one every 1/6 s)
LECTURE_SECONDS = 25.0
#: the longest a paced run of the app waits after step 0 for its rows to be shown (then it goes on unseen)
SHOWN_WAIT = 30.0
#: how often a wait for the ``shown`` cue looks at it again (s)
SHOWN_POLL = 0.05


class StopSignal(threading.Event):
    """A run's stop event (set: end after this step) carrying the cue ``shown``: set once a screen shows
    the run's first rows. A lecture-paced run counts its pace from that cue (:class:`Pace`)."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = threading.Event()


@dataclass
class Pace:
    """Waits before logged steps so that step ``s`` of ``steps`` comes at ``s / steps * seconds`` after
    step 0, or after the ``shown`` cue where there is one (step 0 goes at once; the next logged step waits for
    the cue, at most ``hold`` seconds after step 0). ``clock`` (seconds, monotonic) and ``wait(seconds) ->
    stopped`` are injectable (tests)."""

    steps: int
    seconds: float = LECTURE_SECONDS
    clock: Callable[[], float] = time.monotonic
    wait: Callable[[float], bool] = threading.Event().wait
    shown: threading.Event | None = None
    hold: float = SHOWN_WAIT
    _start: float | None = None
    _first: float | None = None
    waited: float = 0.0

    def due(self, step: int) -> float:
        """Seconds after step 0 at which ``step`` is due."""
        return self.seconds * step / max(self.steps, 1)

    def before(self, step: int) -> bool:
        """Wait until ``step`` is due (step 0 starts the clock); True when the wait was ended by a stop."""
        now = self.clock()
        if self._start is None:
            if self.shown is not None:
                if self._first is None:
                    self._first = now
                if step == 0:
                    return False  # the first row goes at once: it is what the screen waits for
                if self._until_shown(now):
                    return True
                now = self.clock()
            self._start = now
        delay = self._start + self.due(step) - now
        if delay <= 0:
            return False
        stopped = self.wait(delay)
        self.waited += max(0.0, self.clock() - now)
        return bool(stopped)

    def _until_shown(self, now: float) -> bool:
        """Wait for the ``shown`` cue, at most until ``hold`` seconds after step 0; True when a stop ended
        the wait."""
        shown, first = self.shown, self._first if self._first is not None else now
        try:
            while shown is not None and not shown.is_set():
                left = first + self.hold - self.clock()
                if left <= 0:
                    return False
                if self.wait(min(left, SHOWN_POLL)):
                    return True
            return False
        finally:
            self.waited += max(0.0, self.clock() - now)


def lecture_pace(on: bool, steps: int, stop: threading.Event) -> Pace | None:
    """The pace of a run whose lecture-pace switch is ``on`` (waiting on its ``stop``; counting from its
    ``shown`` cue where ``stop`` is a :class:`StopSignal`), else None."""
    if not on:
        return None
    return Pace(steps, wait=stop.wait, shown=stop.shown if isinstance(stop, StopSignal) else None)
