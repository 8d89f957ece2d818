"""Real runs for the page contract tests, made by the engine from each registered experiment's ``smoke``
settings (a few steps on the demo data, on a CPU; the suite's tiny random BERT wherever a config takes an
encoder): finished, stopped, failed, live (rows still being written, its writer alive) and a group of seeds.
Nothing here names an experiment: every entry of :data:`engine.experiments.EXPERIMENTS` gets the same
runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError
from engine.experiments import EXPERIMENTS
from engine.runlog.events import Row
from engine.runlog.runner import run_experiment

#: what the "failed" run's callback raises after its first row (the page shows it as the run's error)
FAILURE = "the contract test's failure after the first row"


def fields_of(kind: str) -> set[str]:
    """The config fields of ``kind``."""
    experiment = EXPERIMENTS[kind]
    return {f.name for f in dataclasses.fields(experiment.config_class)}


def smoke_config(kind: str, encoder: Path, **overrides: Any) -> Any:
    """``kind``'s config of a few-step run: its declared ``smoke`` fields, the tiny encoder where the config
    takes one, then ``overrides`` (those of fields it has: a seed, where it takes one)."""
    names = fields_of(kind)
    values = dict(EXPERIMENTS[kind].smoke)
    if "encoder" in names:
        values["encoder"] = str(encoder)
    values.update({name: value for name, value in overrides.items() if name in names})
    return EXPERIMENTS[kind].make_config(**values)


def make_run(kind: str, folder: Path, encoder: Path, end: str = "finished", **overrides: Any) -> Path:
    """A run of ``kind`` written into ``folder`` by the engine, ending ``finished``, ``stopped`` (stop asked
    after its first row) or ``failed`` (an error raised after its first row)."""
    stop = threading.Event()

    def after_first_row(event: Any) -> None:
        if not isinstance(event, Row):
            return
        if end == "stopped":
            stop.set()
        elif end == "failed":
            raise ConfigError(FAILURE)

    try:
        run_experiment(
            kind,
            smoke_config(kind, encoder, **overrides),
            folder,
            stop=stop,
            on_event=after_first_row,
            name=f"{kind} {end} {folder.name}",
        )
    except ConfigError as err:
        if str(err) != FAILURE:  # only the failure asked for: a bad smoke setting must not pass unseen
            raise
    return folder


@contextlib.contextmanager
def live_run(kind: str, folder: Path, encoder: Path, rows: int = 2) -> Iterator[Path]:
    """A run of ``kind`` that has written ``rows`` rows and waits, its writer alive, until the block ends;
    then it is stopped and its thread joined."""
    written, release, stop = threading.Semaphore(0), threading.Event(), threading.Event()
    count = [0]

    def hold(event: Any) -> None:
        if isinstance(event, Row):
            count[0] += 1
            if count[0] == rows:
                written.release()
                release.wait(timeout=300)
                stop.set()

    config = smoke_config(kind, encoder, steps=rows + 20)
    worker = threading.Thread(
        target=run_experiment,
        args=(kind, config, folder),
        kwargs={"stop": stop, "on_event": hold, "name": f"{kind} live"},
        daemon=True,
    )
    worker.start()
    try:
        if not written.acquire(timeout=300):
            raise TimeoutError(f"the live {kind} run wrote no {rows} rows in time")
        yield folder
    finally:
        release.set()
        worker.join(timeout=120)


def make_group(kind: str, folder: Path, encoder: Path) -> Path:
    """A group of 2 seeds of ``kind`` (``group.json``, its members' run folders, ``summary.json``); of two
    lengths for an experiment without a seed."""
    from engine.groups import create_group, run_group
    from engine.groups.runner import LocalExecutor

    base = dataclasses.asdict(smoke_config(kind, encoder))
    if "seed" in base:  # an experiment without a seed knob: two lengths instead
        base.pop("seed")
        grid: dict[str, list[Any]] = {"seed": [0, 1]}
    else:
        steps = base.pop("steps")
        grid = {"steps": [steps, steps + 1]}
    group = create_group(folder, kind, base, grid, name=f"{kind} seeds")
    run_group(group, executor=LocalExecutor(echo=False))
    return folder


def copy_runs(made: dict[str, Path], runs_dir: Path, *names: str) -> None:
    """Copy the made folders ``names`` (runs, groups) into ``runs_dir`` under their own folder names."""
    for name in names:
        shutil.copytree(made[name], runs_dir / made[name].name)
