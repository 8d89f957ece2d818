"""``python -m engine``: the headless CLI (see :mod:`engine.cli`).

Ctrl-C at any moment ends quietly with exit 130: during the first seconds the CLI is still importing torch
and transformers, outside the run's own handling, and a traceback there would only frighten.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_INTERRUPTED = 130
NOTHING_RECORDED = "interrupted before the run started: nothing was recorded"


def _interrupted_while_importing(signum: int, frame: object) -> None:
    """SIGINT while the CLI imports: a KeyboardInterrupt raised inside a C extension's import (numpy's, say)
    comes out as an ImportError with a traceback, so end at once instead: nothing is written yet."""
    print(NOTHING_RECORDED, file=sys.stderr, flush=True)
    os._exit(EXIT_INTERRUPTED)


def run() -> None:
    """Entry point of ``python -m engine`` and the ``embedlab`` command."""
    quiet_imports = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if quiet_imports:
        signal.signal(signal.SIGINT, _interrupted_while_importing)
    try:
        from engine.cli import main

        if quiet_imports:  # from here on Ctrl-C is the run's own KeyboardInterrupt (stopped between steps)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        code = main()
        if code == EXIT_INTERRUPTED:
            # a stopped run is on disk, marked stopped: skip the seconds that the interpreter's shutdown
            # takes after torch, so that Stop ends the process at once
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    except KeyboardInterrupt:
        print(NOTHING_RECORDED, file=sys.stderr)
        code = EXIT_INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    run()
