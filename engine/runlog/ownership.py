"""Whose files a run folder holds: a run folder is the lab's alone (issue 47).

``--out D --force`` replaces the run in ``D`` whole (:mod:`engine.runlog.swap`): the old folder is
swapped aside and removed. So ``D`` must hold nothing but a run the lab wrote, or a user's files beside it (a
thesis, a notes folder, a ``metrics.csv`` of their own) would be removed with it; and ``--out`` never names a
folder that holds more than runs by its nature (``/``, the home folder, the current folder, the project
or a folder above it), even empty of other files. :func:`refusal` says why a folder cannot take a run, in
one line.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.core import settings
from engine.runlog.files import ERROR_LOG, RUN_ENTRIES, STATUS
from engine.runlog.liveness import LOCK

#: every name a run's writer puts in its folder (:mod:`engine.runlog.writer`, :mod:`engine.runlog.runner`)
LAB_NAMES = frozenset({*RUN_ENTRIES, ERROR_LOG, LOCK})
#: names shown of a folder's other files before "…"
SHOWN = 3


def is_lab_name(name: str) -> bool:
    """Whether ``name`` is one the lab writes into a run folder (a temporary file of an atomic write too:
    ``.NAME.*.tmp``)."""
    return name in LAB_NAMES or (name.startswith(".") and name.endswith(".tmp"))


def foreign_entries(folder: Path) -> list[str]:
    """The entries of ``folder`` that no run's writer makes, sorted."""
    return sorted(name for name in os.listdir(folder) if not is_lab_name(name))


def holds_lab_run(folder: Path) -> bool:
    """Whether ``folder`` holds a run the lab wrote: its ``status.json`` (a regular file, damaged or not: a
    damaged run is still the lab's to replace) and nothing the lab did not write."""
    status = Path(folder) / STATUS
    return status.is_file() and not status.is_symlink() and not foreign_entries(folder)


def _protected(real: Path) -> str | None:
    """What ``real`` (resolved) is when a run must never take it: the root, the home folder, the current
    folder or one above it, the project or one above it."""
    if real == Path(real.anchor):
        return "the file system's root"
    if real == Path.home().resolve():
        return "the home folder"
    cwd = Path.cwd().resolve()
    if real == cwd or real in cwd.parents:
        return "the current folder" if real == cwd else "a folder above the current one"
    project = settings.REPO_ROOT.resolve()
    if real == project or real in project.parents:
        return "the project's folder" if real == project else "a folder above the project"
    return None


def refusal(out: str) -> str | None:
    """Why ``--out out`` cannot take a new run, with or without ``--force``, as the one line of its error;
    None when it can: a new folder, an empty one, or one holding a run the lab wrote (whether that run may
    be replaced is the caller's rule: with ``--force``, or when it ended before its first step)."""
    if not out.strip():
        return "--out is empty: name a new folder for the run"
    path = Path(out).expanduser()
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as err:  # a symlink loop
        return f"--out {out}: cannot be resolved ({err})"
    what = _protected(real)
    if what is not None:
        return f"--out {out}: is {what}; a run needs a folder of its own (a new one)"
    if not os.path.lexists(path):
        return None
    if not path.is_dir():
        return f"--out {out}: exists and is not a folder"
    try:
        foreign = foreign_entries(path)
        lab_run = holds_lab_run(path)
        empty = not os.listdir(path)
    except OSError as err:
        return f"--out {out}: cannot be read ({err.strerror or err})"
    if foreign:
        shown = ", ".join(foreign[:SHOWN]) + (", …" if len(foreign) > SHOWN else "")
        return (
            f"--out {out}: holds files the lab did not write ({shown}); a run needs a new or empty "
            "folder (--force replaces only a run)"
        )
    if not empty and not lab_run:
        return f"--out {out}: holds no run the lab wrote (no status.json); choose a new or empty folder"
    return None
