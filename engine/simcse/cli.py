"""``python -m engine simcse ...`` flags, and the run itself for one process or a torchrun launch.

:func:`add_arguments` / :func:`config_from_args` are the contract with :mod:`engine.cli` (which adds
``--out`` and ``--force``); the flags are made from :class:`SimCSEConfig`'s declarations
(:mod:`engine.flags`). :func:`run_cli` is called by ``engine.cli.execute`` instead of its default path: in a
single process it does what the default does (with :mod:`engine.cli_run`'s plumbing); under
``torchrun --nproc_per_node=N -m engine simcse`` rank 0 writes the run folder through
:func:`engine.runner.run_experiment` while the other ranks run the same generator without writing anything
(see :mod:`engine.simcse.distributed`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from engine import flags, settings
from engine.cli_run import EXIT_INTERRUPTED, ProgressBar, prepare_out_dir, say_where, stop_on_sigterm
from engine.errors import ConfigError
from engine.simcse.distributed import launched_by_torchrun
from engine.simcse.train import SimCSEConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per knob of :class:`SimCSEConfig` (the paper's ablations among them)."""
    flags.add_flags(parser, SimCSEConfig)


def config_from_args(args: argparse.Namespace) -> SimCSEConfig:
    """Build (and validate) the config; bad values raise ConfigError with one line. ``--force`` also allows
    replacing a saved encoder of the ``--save-encoder`` name."""
    return flags.config_from_args(SimCSEConfig, args, replace_encoder=bool(getattr(args, "force", False)))


def run_cli(args: argparse.Namespace, config: SimCSEConfig) -> int:
    """Run from the CLI: one process as engine.cli does, or rank-aware under torchrun."""
    from engine.runner import run_experiment
    from engine.simcse.train import train_simcse

    rank = int(os.environ.get("RANK", "0")) if launched_by_torchrun() else 0
    stop = threading.Event()
    stop_on_sigterm(stop)
    if rank != 0:
        for _ in train_simcse(config, stop):
            pass
        return 0
    saved_as = None
    if config.save_encoder:
        from engine.encoders.store import check_save_name

        try:
            saved_as = check_save_name(config.save_encoder, overwrite=config.replace_encoder)
        except ConfigError as err:
            raise ConfigError(
                f"--save-encoder: {err}".replace("or allow replacing it", "or pass --force")
            ) from None
        if saved_as != config.save_encoder:
            print(
                f"--save-encoder {config.save_encoder!r}: saved as cache/encoders/{saved_as}", file=sys.stderr
            )
    out_dir = prepare_out_dir(args.out, getattr(args, "force", False))
    progress = ProgressBar(config.steps, enabled=not settings.get("no_progress"))
    try:
        summary = run_experiment(
            "simcse", config, out_dir, stop=stop, on_event=progress, name=getattr(args, "name", None)
        )
    finally:
        progress.close()
    print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str), file=sys.stdout)
    say_where(out_dir)
    if saved_as is not None and summary.get("state") == "finished":
        from engine import paths

        print(f"encoder saved to {paths.encoders_dir() / saved_as}", file=sys.stderr)
    return EXIT_INTERRUPTED if summary.get("state") == "stopped" else 0
