"""The job server's exit with runs going (issue 55): a server sent SIGTERM kept running over 50 s. Streamlit
stops its own server on SIGTERM as on Ctrl-C, but a terminal's Ctrl-C reaches the runs' children too (one
process group) while SIGTERM reaches the server alone: its children went on, and the server's exit waited on
them (a reader thread blocked on a child's pipe holds the pipe's lock that the interpreter's finalisation
takes). Here, at the exit, every run is stopped first: its child gets SIGTERM (its run ends after its step,
its folder marked ``stopped``), the exit waits for them at most :data:`EXIT_SECONDS`, and a child still
going then (one loading its encoder and data checks for a stop only at its first step) is killed through
its process handle (``Popen.kill``: never a signal to a stored PID), its folder marked ``stopped`` by the
server (:meth:`engine.jobs.children.ChildRun.outcome`).

The process of ``streamlit run`` then ends at once (``os._exit``, its logs flushed): the interpreter's
finalisation waited 4–6 s more on a UMAP warm-up (numba's JIT, on the projection worker's daemon thread)
still compiling, whose LLVM objects' finalisers take the lock its compilation holds (measured on 2 cores,
2026-12-07). What the exit has to do is done by then: the runs are stopped and marked, and the handlers
registered after this one (the live feed's files removed) have run (``atexit`` calls the last first)."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys

from engine.jobs.registry import JobRegistry

#: how long the server's exit waits for its runs to stop, then for those killed to be marked (in all below
#: the 10 s a service manager grants before SIGKILL)
EXIT_SECONDS, KILLED_SECONDS = 4.0, 2.0


def stop_runs(registry: JobRegistry, timeout: float = EXIT_SECONDS) -> bool:
    """Stop every run of ``registry`` and wait at most ``timeout`` s for them to end; then end its
    threads and its warm spare. Whether every run ended in time."""
    registry.stop_all()
    ended = registry.wait_idle(timeout)
    if not ended:
        for child in list(registry.children.values()):
            with contextlib.suppress(OSError):
                child.proc.kill()  # the handle's own signal: Popen polls first, never a reused PID
        registry.wait_idle(KILLED_SECONDS)
    registry.shutdown(timeout=0.5)
    return ended


def stop_runs_at_exit(registry: JobRegistry) -> None:
    """:func:`stop_runs` of ``registry`` when the process exits (``atexit``: after Streamlit's server has
    stopped, before the interpreter's finalisation), then, in a Streamlit server, the process ended."""
    atexit.register(_exit, registry, served())


def served() -> bool:
    """Whether this process is a Streamlit server (``streamlit run`` or ``python -m streamlit run``: its
    command line, ``streamlit.web.cli``, loaded; by then ``sys.argv`` and ``__main__`` are the app's), not a
    test's AppTest or a script."""
    return "streamlit.web.cli" in sys.modules


def _exit(registry: JobRegistry, end_process: bool) -> None:
    stop_runs(registry)
    if end_process:
        logging.shutdown()
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)
