"""A clock that says what the test sets, for code that takes a ``clock`` (``time.monotonic``,
``perf_counter``)."""

from __future__ import annotations


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
