"""How a command of the engine ends (its exit status) and how to start one in a fresh interpreter."""

from __future__ import annotations

import signal
import sys

#: a user's error (one line on stderr), any other failure, Ctrl-C
EXIT_USER_ERROR, EXIT_FAILURE, EXIT_INTERRUPTED = 2, 1, 130
#: SIGTERM to a command of several runs (:func:`engine.command.signals.reports_stop`)
EXIT_TERMINATED = 128 + signal.SIGTERM


def engine_command(*args: str) -> list[str]:
    """The command line of ``python -m engine ARGS`` in a fresh interpreter (this one's executable)."""
    return [sys.executable, "-m", "engine", *args]
