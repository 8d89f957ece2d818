"""``python -m engine``: the headless CLI (see :mod:`engine.cli`).

Ctrl-C at any moment ends quietly with exit 130: during the first seconds the CLI is still importing torch
and transformers, outside the run's own handling, and a traceback there would only frighten.
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130


def run() -> None:
    """Entry point of ``python -m engine`` and the ``embedlab`` command."""
    try:
        from engine.cli import main

        code = main()
    except KeyboardInterrupt:
        print("interrupted before the run started: nothing was recorded", file=sys.stderr)
        code = EXIT_INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    run()
