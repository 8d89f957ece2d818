"""Runs side by side on one machine: how many processes, and how many torch threads each.

Shared by the app's job registry (its lanes, :mod:`engine.jobs.registry`) and by
``python -m engine.simcse.figure2_runs``, so that both plan the same way and no experiment imports the job
server.
"""

from __future__ import annotations

import os


def plan_workers(runs: int, requested: int, cpus: int) -> tuple[int, int]:
    """``(processes, torch threads each)`` for runs side by side: ``requested`` processes (0: one per CPU),
    at most one per run, the CPUs shared out evenly (at least one thread each)."""
    workers = max(1, min(runs, requested or cpus))
    return workers, max(1, cpus // workers)


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask; all CPUs where that is unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
