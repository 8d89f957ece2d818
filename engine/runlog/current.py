"""The run being written in this context: its folder and its name, for what a run makes besides its folder
(a saved encoder's card names the run that made it). Set by :func:`engine.runlog.runner.run_experiment`
while it drives an experiment's generator (a generator runs in the context of whoever advances it)."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_CURRENT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("embedlab_run", default=None)


@contextlib.contextmanager
def writing(run_dir: Path, name: str) -> Iterator[None]:
    """While the block runs, :func:`current` is this run."""
    token = _CURRENT.set({"folder": Path(run_dir).name, "path": str(run_dir), "name": name})
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> dict[str, Any] | None:
    """The run being written here (``folder``, ``path``, ``name``), or None outside a run."""
    found = _CURRENT.get()
    return dict(found) if found else None


def drive(generator: Iterator[Any], run_dir: Path, name: str) -> Iterator[Any]:
    """``generator``'s items, each made while :func:`current` is this run."""
    items = iter(generator)
    while True:
        with writing(run_dir, name):
            try:
                item = next(items)
            except StopIteration:
                return
        yield item
