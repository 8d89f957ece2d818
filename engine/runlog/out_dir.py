"""The run folder a command writes into (``--out``, ``--force``): made, refused, or replaced, and where it
went when it is outside the lab's runs."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError
from engine.runlog.states import RunState


def prepare_out_dir(out: str, force: bool) -> Path:
    """The run folder: a new one, an empty one, or one holding a run the lab wrote; that run is replaced
    only with ``force`` (or when it ended before a step). A folder with anything else in it, and the
    folders :mod:`engine.runlog.ownership` protects, are refused with one line before anything is touched:
    ``--force`` swaps the whole folder aside and removes it (issue 47: it took a user's files with it)."""
    from engine.runlog.ownership import refusal

    why = refusal(out)
    if why is not None:
        raise ConfigError(why)
    path = Path(out).expanduser()
    if (path / "status.json").exists() and not force and not ended_before_a_step(path):
        raise ConfigError(
            f"--out {out}: already holds a run (status.json); choose another folder or pass --force"
        )
    try:  # with --force the old run stays until the new one is swapped in whole (engine.runlog.swap)
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        refusal_line = paths.not_writable(err, Path(err.filename or path))
        if refusal_line is None:
            raise
        raise ConfigError(f"--out {out}: {refusal_line}") from None
    return path


def say_where(path: Path) -> None:
    """After a run: one written outside the lab's run folder never shows in the app, so say where it went
    and how to put it where the app lists runs (one line on stderr)."""
    runs = paths.cache_location() / "runs"  # named, not made: the run may well be the cache's only user
    if path.resolve().parent == runs:
        return
    print(
        f"note: the run is in {path.resolve()}; the app lists the runs in {runs} "
        f"(--out {runs / path.name} to see it on Compare)",
        file=sys.stderr,
    )


def ended_before_a_step(path: Path) -> bool:
    """Whether the run in ``path`` ended (failed, stopped, or its writer died) before it logged a step: a
    run that failed in its set-up (a bad ``--data-dir``) holds nothing to keep, so running into its folder
    again replaces it whole without ``--force``."""
    from engine.runlog import STATUS, read_json, read_metrics, run_state

    try:
        state, status = run_state(path), read_json(path / STATUS)
        if state in (RunState.RUNNING, RunState.FINISHED) or status.get("last_step") is not None:
            return False
        return read_metrics(path).empty
    except (OSError, ValueError):  # a damaged folder is kept for --force to replace
        return False
