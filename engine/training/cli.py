"""The command-line run of an encoder-training experiment, for one process or a torchrun launch.

``python -m engine simcse|jepa ...`` calls the experiment's ``run_cli(args, config)`` (instead of
``engine.cli.execute``'s default path), which is :func:`run_cli` here with the experiment's generator: in a
single process it does what the default does (with :mod:`engine.command`'s plumbing); under
``torchrun --nproc_per_node=N -m engine <kind>`` rank 0 writes the run folder through
:func:`engine.runlog.runner.run_experiment` while the other ranks run the same generator without writing
anything (see :mod:`engine.training.distributed`).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from engine.command.exits import EXIT_INTERRUPTED
from engine.command.progress import ProgressBar
from engine.command.signals import stop_on_sigterm
from engine.core import settings
from engine.runlog.events import Event
from engine.runlog.out_dir import prepare_out_dir, say_where
from engine.runlog.states import RunState

#: ``before()`` runs on rank 0 before the run folder is made and returns what to do with the run's summary
#: once the folder is named (or None)
Before = Callable[[], Callable[[dict[str, Any]], None] | None]


def run_cli(
    kind: str,
    args: argparse.Namespace,
    config: Any,
    train: Callable[[Any, threading.Event], Iterator[Event]],
    before: Before | None = None,
) -> int:
    """Run ``kind`` from the CLI: one process as engine.cli does, or rank-aware under torchrun; prints the
    summary as JSON and where the run went; exits with :data:`~engine.command.exits.EXIT_INTERRUPTED` when
    stopped."""
    from engine.runlog.runner import run_experiment

    rank = settings.get("torchrun_rank") if settings.torchrun_launch() else 0
    stop = threading.Event()
    stop_on_sigterm(stop)
    if rank != 0:
        for _ in train(config, stop):
            pass
        return 0
    after = before() if before is not None else None
    out_dir = prepare_out_dir(args.out, getattr(args, "force", False))
    progress = ProgressBar(config.steps, enabled=not settings.get("no_progress"))
    try:
        summary = run_experiment(
            kind, config, out_dir, stop=stop, on_event=progress, name=getattr(args, "name", None)
        )
    finally:
        progress.close()
    print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str), file=sys.stdout)
    say_where(out_dir)
    if after is not None:
        after(summary)
    return EXIT_INTERRUPTED if summary.get("state") == RunState.STOPPED else 0
