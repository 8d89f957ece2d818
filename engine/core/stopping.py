"""A run's stop, seen inside the long loops of its set-up (reading data, encoding a corpus), not only between
two steps.

An experiment wraps its set-up in :func:`watching` with its stop event; the loops that may take long call
:func:`check` at each chunk or batch, which raises :class:`Stopped` once the event is set. The experiment
catches it and returns: the runner records the run as ``stopped`` (a ``Stopped`` that escapes is a
``KeyboardInterrupt``, which the runner also records as ``stopped``). Outside :func:`watching` (a page
previewing a file, a test) :func:`check` does nothing.

The event travels in a :class:`contextvars.ContextVar`, so each thread (each in-process job) sees its own.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar

_CURRENT: ContextVar[threading.Event | None] = ContextVar("embedlab_stop", default=None)


class Stopped(KeyboardInterrupt):
    """The run's stop was set during its set-up."""


@contextlib.contextmanager
def watching(stop: threading.Event | None) -> Iterator[None]:
    """Make ``stop`` the event that :func:`check` looks at inside the block."""
    token = _CURRENT.set(stop)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check() -> None:
    """Raise :class:`Stopped` when the stop event of the enclosing :func:`watching` is set."""
    stop = _CURRENT.get()
    if stop is not None and stop.is_set():
        raise Stopped("stopped during set-up")
