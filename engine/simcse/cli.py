"""``python -m engine simcse ...`` flags, and the run itself for one process or a torchrun launch.

:func:`add_arguments` / :func:`config_from_args` are the contract with :mod:`engine.cli` (which adds
``--out`` and ``--force``); the flags are made from :class:`SimCSEConfig`'s declarations
(:mod:`engine.core.flags`). :func:`run_cli` is the training core's (:func:`engine.training.cli.run_cli`:
rank-aware under ``torchrun --nproc_per_node=N -m engine simcse``), with SimCSE's ``--save-encoder`` checked
before the run and named after it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from engine.core import flags
from engine.core.errors import ConfigError
from engine.runlog.states import RunState
from engine.simcse.config import SAME_MASK_DROPOUT, SimCSEConfig
from engine.training import cli


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per knob of :class:`SimCSEConfig` (the paper's ablations among them)."""
    flags.add_flags(parser, SimCSEConfig)


def config_from_args(args: argparse.Namespace) -> SimCSEConfig:
    """Build (and validate) the config; bad values raise ConfigError with one line. ``--force`` also allows
    replacing a saved encoder of the ``--save-encoder`` name. ``--same-mask`` with another ``--dropout`` than
    the ablation's fixed rate is refused (the config would train at the fixed rate, not at the one typed)."""
    if getattr(args, "same_mask", False) and getattr(args, "dropout", None) not in (None, SAME_MASK_DROPOUT):
        raise ConfigError(
            f"--same-mask fixes the dropout rate at {SAME_MASK_DROPOUT:g} (the paper's 'fixed 0.1'); "
            f"drop --dropout {args.dropout:g} or --same-mask"
        )
    return flags.config_from_args(SimCSEConfig, args, replace_encoder=bool(getattr(args, "force", False)))


def run_cli(args: argparse.Namespace, config: SimCSEConfig) -> int:
    """Run from the CLI: one process as engine.cli does, or rank-aware under torchrun."""
    from engine.simcse.train import train_simcse

    return cli.run_cli("simcse", args, config, train_simcse, before=lambda: _check_save_name(config))


def _check_save_name(config: SimCSEConfig) -> Callable[[dict[str, Any]], None] | None:
    """Refuse a taken ``--save-encoder`` name before the run (a free variant is said); after a finished run,
    say where the encoder went."""
    if not config.save_encoder:
        return None
    from engine.encoders.store import check_save_name

    try:
        saved_as = check_save_name(config.save_encoder, overwrite=config.replace_encoder)
    except ConfigError as err:
        raise ConfigError(
            f"--save-encoder: {err}".replace("or allow replacing it", "or pass --force")
        ) from None
    if saved_as != config.save_encoder:
        print(f"--save-encoder {config.save_encoder!r}: saved as cache/encoders/{saved_as}", file=sys.stderr)

    def said(summary: dict[str, Any]) -> None:
        if summary.get("state") == RunState.FINISHED:
            from engine.core import paths

            print(f"encoder saved to {paths.encoders_dir() / saved_as}", file=sys.stderr)

    return said
