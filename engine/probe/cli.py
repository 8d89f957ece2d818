"""The flags of ``python -m engine probe``: made from :class:`~engine.probe.config.ProbeConfig`'s declarations
(:mod:`engine.core.flags`); ``--out``/``--force`` and the run plumbing come from :mod:`engine.cli`."""

from __future__ import annotations

import argparse

from engine.core import flags
from engine.probe.config import ProbeConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per knob of :class:`ProbeConfig`."""
    flags.add_flags(parser, ProbeConfig)


def config_from_args(args: argparse.Namespace) -> ProbeConfig:
    """The config of the parsed flags; a bad value raises one ConfigError line."""
    return flags.config_from_args(ProbeConfig, args)
