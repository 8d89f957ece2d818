"""``python -m engine jepa ...`` flags, and the run itself for one process or a torchrun launch.

The flags come from :class:`JEPAConfig`'s declarations (:mod:`engine.core.flags`): ``--view``, ``--ema`` (0:
no target copy), ``--predictor/--no-predictor``, ``--stop-grad/--no-stop-grad``, ``--regulariser
{none,vicreg,sigreg}`` and the shared data, encoder, steps, batch, lr, evaluation and snapshot options
(:mod:`engine.core.shared_knobs`). :func:`run_cli` is the training core's
(:func:`engine.training.cli.run_cli`: rank-aware under ``torchrun --nproc_per_node=N -m engine jepa``).
"""

from __future__ import annotations

import argparse

from engine.core import flags
from engine.jepa.config import JEPAConfig
from engine.training import cli


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per knob of :class:`JEPAConfig` (the collapse ablations among them)."""
    flags.add_flags(parser, JEPAConfig)


def config_from_args(args: argparse.Namespace) -> JEPAConfig:
    """Build (and validate) the config; bad values raise ConfigError with one line."""
    return flags.config_from_args(JEPAConfig, args)


def run_cli(args: argparse.Namespace, config: JEPAConfig) -> int:
    """Run from the CLI: one process as engine.cli does, or rank-aware under torchrun."""
    from engine.jepa.train import train_jepa

    return cli.run_cli("jepa", args, config, train_jepa)
