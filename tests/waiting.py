"""The one way tests wait: poll a condition until it holds, with a deadline that explains itself.

Tests never sleep for a fixed time and never assert on wall-clock durations; they wait for a state (a row
on disk, a job ended, a process gone) and then assert order and counts. The deadline only turns a hang into
a failure that says what was awaited.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(
    condition: Callable[[], T],
    timeout: float = 120.0,
    what: str = "condition",
    interval: float = 0.02,
    describe: Callable[[], str] | None = None,
) -> T:
    """Call ``condition`` until it returns something truthy and return that; fail after ``timeout`` seconds
    with ``what`` (and ``describe()``, e.g. a server log tail) in the message."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            detail = f"\n{describe()}" if describe is not None else ""
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}{detail}")
        time.sleep(interval)
