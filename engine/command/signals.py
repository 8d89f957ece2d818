"""Ctrl-C and SIGTERM in a command: one run ends cleanly between two steps (:func:`stop_on_sigterm`), a
command of several runs stops its current run and says so (:func:`interrupting`, :func:`reports_stop`)."""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
from collections.abc import Callable, Iterator

from engine.command.exits import EXIT_INTERRUPTED, EXIT_TERMINATED


def stop_on_sigterm(stop: threading.Event) -> None:
    """SIGTERM ends the run cleanly between steps (SIGKILL cannot be caught: the log is already safe), and
    Ctrl-C stops it too where the shell started this process with SIGINT ignored (:func:`catch_sigint`)."""
    if threading.current_thread() is threading.main_thread():
        catch_sigint()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())


def catch_sigint() -> None:
    """A script's background job (``cmd &``) starts with SIGINT ignored, and Python then never raises
    KeyboardInterrupt: install its handler, so Ctrl-C stops the run between steps as in the foreground."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Terminated(KeyboardInterrupt):
    """SIGTERM to a command of several runs (a group, a sweep, the lessons check), raised as Ctrl-C's
    KeyboardInterrupt is: the run in progress ends ``stopped``, recorded, and the command says so."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def interrupting() -> Iterator[None]:
    """For the ``with`` block of a command of several runs: Ctrl-C (:func:`catch_sigint`) and SIGTERM
    (:class:`Terminated`) stop it between two steps of its current run, so nothing is left ``running``. The
    handlers before are back afterwards. Main thread only (elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    catch_sigint()
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        for number, handler in before.items():
            if handler is not None:
                signal.signal(number, handler)


def reports_stop(what: str, note: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """For a command of several runs: Ctrl-C or SIGTERM (:func:`interrupting`) ends the run in
    progress ``stopped`` and the command with one line (``<what>: stopped by SIGTERM; <note>``), exit 130
    for Ctrl-C, 143 for SIGTERM."""

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(command)
        def wrapped(*args: object, **kwargs: object) -> int:
            try:
                with interrupting():
                    return command(*args, **kwargs)
            except KeyboardInterrupt as err:
                terminated = isinstance(err, Terminated)
                print(f"{what}: stopped by {'SIGTERM' if terminated else 'Ctrl-C'}; {note}", file=sys.stderr)
                return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED

        return wrapped

    return decorate
