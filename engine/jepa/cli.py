"""``python -m engine jepa ...`` flags, and the run itself for one process or a torchrun launch.

The flags come from :class:`JEPAConfig`'s declarations (:mod:`engine.flags`): ``--view``, ``--ema`` (0: no
target copy), ``--predictor/--no-predictor``, ``--stop-grad/--no-stop-grad``, ``--regulariser
{none,vicreg,sigreg}`` and SimCSE's data, encoder, steps, batch, lr, evaluation and snapshot options.
Under ``torchrun --nproc_per_node=N -m engine jepa`` rank 0 writes the run folder through
:func:`engine.runner.run_experiment` while the other ranks run the same generator without writing anything,
as SimCSE's (:mod:`engine.simcse.cli`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from engine import flags, settings
from engine.cli_run import EXIT_INTERRUPTED, ProgressBar, prepare_out_dir, say_where, stop_on_sigterm
from engine.jepa.config import JEPAConfig
from engine.simcse.distributed import launched_by_torchrun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per knob of :class:`JEPAConfig` (the collapse ablations among them)."""
    flags.add_flags(parser, JEPAConfig)


def config_from_args(args: argparse.Namespace) -> JEPAConfig:
    """Build (and validate) the config; bad values raise ConfigError with one line."""
    return flags.config_from_args(JEPAConfig, args)


def run_cli(args: argparse.Namespace, config: JEPAConfig) -> int:
    """Run from the CLI: one process as engine.cli does, or rank-aware under torchrun."""
    from engine.jepa.train import train_jepa
    from engine.runner import run_experiment

    rank = int(os.environ.get("RANK", "0")) if launched_by_torchrun() else 0
    stop = threading.Event()
    stop_on_sigterm(stop)
    if rank != 0:
        for _ in train_jepa(config, stop):
            pass
        return 0
    out_dir = prepare_out_dir(args.out, getattr(args, "force", False))
    progress = ProgressBar(config.steps, enabled=not settings.get("no_progress"))
    try:
        summary = run_experiment(
            "jepa", config, out_dir, stop=stop, on_event=progress, name=getattr(args, "name", None)
        )
    finally:
        progress.close()
    print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str), file=sys.stdout)
    say_where(out_dir)
    return EXIT_INTERRUPTED if summary.get("state") == "stopped" else 0
