"""CPU priority of threads: on a small machine the app's training comes first and its drawing second.

A training child and the app's web server share the same cores. Linux's scheduler (CFS) shares CPU first
between session groups (autogroup, ``/proc/<pid>/autogroup``) and then, inside a group, by the nice value
of each thread (Linux keeps one per thread: ``setpriority(PRIO_PROCESS, thread_id, nice)``). So the job
registry starts its children in the server's own session (a process group of their own keeps them out of
reach of the terminal's Ctrl-C), and the server's drawing threads take a higher nice value: when a chart
refresh and a training step want the same core, the step gets most of it. A nice-10 thread weighs 110
against a nice-0 thread's 1024 (the kernel's ``sched_prio_to_weight``), i.e. ~10 % of a contended core; a
free core is still all the refresh's.

Unprivileged threads can raise their nice value but never lower it, and a thread starts with the nice
value of the thread that created it: children must be started from a thread that was not lowered.
"""

from __future__ import annotations

import os
import sys
import threading

from engine.core import settings


def supported() -> bool:
    """Per-thread nice values exist (Linux). Elsewhere ``setpriority`` takes a process id, not a thread's."""
    return sys.platform.startswith("linux") and hasattr(os, "setpriority")


def thread_nice(thread_id: int | None = None) -> int | None:
    """The nice value of a thread of this process (default: the calling one), None where unsupported."""
    if not supported():
        return None
    try:
        return os.getpriority(os.PRIO_PROCESS, thread_id or threading.get_native_id())
    except OSError:
        return None


def lower_thread_priority(nice: int, thread_id: int | None = None) -> bool:
    """Raise a thread's nice value to at least ``nice`` (never lowers it); True when it is now that low.

    ``thread_id`` is a native id of a thread of this process (``threading.Thread.native_id``; default the
    calling thread). Threads it creates afterwards inherit the value.
    """
    current = thread_nice(thread_id)
    if current is None:
        return False
    if current >= nice:
        return True
    try:
        os.setpriority(os.PRIO_PROCESS, thread_id or threading.get_native_id(), int(nice))
    except OSError:
        return False
    return True


def ui_nice() -> int:
    """The nice value for the app's drawing threads (setting ``ui_nice``: 0-19, 0 = keep)."""
    return int(settings.get("ui_nice"))


def yield_to_training(thread_ids: list[int | None]) -> int:
    """Lower these threads of this process (None: the calling one) to :func:`ui_nice`; returns the nice value
    they now have at least, or 0 where nothing was lowered (turned off, unsupported, or refused)."""
    nice = ui_nice()
    if nice <= 0:
        return 0
    done = [lower_thread_priority(nice, thread_id) for thread_id in thread_ids]
    return nice if done and all(done) else 0
