"""The ``--events`` wire stream of a run's process: what :mod:`engine.jobs` reads from a child, one
:mod:`engine.runlog.events` JSON line per event (:func:`~engine.runlog.events.to_line`)."""

from __future__ import annotations

import os
import sys
import threading

from engine.runlog import events
from engine.runlog.events import Event, Progress, Row


class EventStream:
    """``--events``: liveness for :mod:`engine.jobs`, one :mod:`engine.runlog.events` JSON line per event,
    flushed.

    :class:`~engine.runlog.events.Progress` as yielded, a :class:`~engine.runlog.events.Tick` per row (the row
    and its snapshot are on disk already: the server reads them from the run folder) and
    :class:`~engine.runlog.events.Finished` at the end. The stream owns the original stdout; anything else
    printed goes to stderr. When the reader is gone (broken pipe) or the parent process ended, ``stop`` is
    set: the run ends cleanly after its step.
    """

    def __init__(self, stop: threading.Event):
        self.stop = stop
        self.out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the stream
        self._parent = os.getppid()
        threading.Thread(target=self._watch_parent, name="events-parent", daemon=True).start()

    def _watch_parent(self) -> None:
        while not self.stop.wait(0.5):
            if os.getppid() != self._parent:
                self.stop.set()

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.send(event)
        elif isinstance(event, Row):
            self.send(events.tick_of(event))

    def send(self, event: events.WireEvent) -> None:
        try:
            self.out.write(events.to_line(event) + "\n")
            self.out.flush()
        except (OSError, ValueError):  # the reader is gone: end the run cleanly
            self.stop.set()
