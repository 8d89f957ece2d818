"""The flags of ``python -m engine <experiment>``, made from the config's declarations
(:mod:`engine.core.knobs`).

Each knob with a flag becomes one option: a bool a ``store_true`` switch (``--same-mask``), or when it
defaults to true a ``--x/--no-x`` pair (``--predictor/--no-predictor``), a choice an
option with ``choices``, a number an option of its type whose help ends with its default and range, a text an
option (``metavar`` where declared). An optional count whose 0 means None (``zero=``) defaults to 0 on the
command line and 0 becomes None in the config (``--eval-limit 0``: all pairs).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.core.knobs import Knob, knobs, number_text


def literal(text: str) -> str:
    """Help text shown as written: argparse formats help with ``%``, so a literal ``%`` must be doubled."""
    return text.replace("%", "%%")


def flag_help(item: Knob) -> str:
    """The knob's help, then its default and its range (``(default 1000; 1 to 1,000,000)``)."""
    default = item.shown_default()
    notes = []
    if default is not None and item.type is not bool:
        shown = number_text(default) if item.type in (int, float) else str(default)
        notes.append(f"default {shown}")
    if item.ranged:
        notes.append(item.range_text())
    help_text = item.help.rstrip(".")
    return literal(help_text + (f" ({'; '.join(notes)})" if notes else ""))


def add_flags(parser: argparse.ArgumentParser, config_class: type) -> None:
    """One option per knob of ``config_class`` that has a flag."""
    for item in knobs(config_class):
        if item.flag is not None:
            add_flag(parser, item)
    add_name_flag(parser)


def add_flag(parser: argparse.ArgumentParser, item: Knob, **more: Any) -> None:
    """The option of one knob (its flag, type, default, choices and help); ``more``: other ``add_argument``
    options (``required=True``)."""
    options: dict[str, Any] = {"dest": item.name, "help": flag_help(item)}
    if item.type is bool:
        options["action"] = argparse.BooleanOptionalAction if item.default else "store_true"
        options["default"] = item.default  # a BooleanOptionalAction's own default is None
    else:
        options.update(type=item.type, default=item.shown_default())
        if item.choices is not None:
            options["choices"] = item.choices
        if item.metavar:
            options["metavar"] = item.metavar
    parser.add_argument(item.flag, **{**options, **more})


def add_name_flag(parser: argparse.ArgumentParser) -> None:
    """``--name``: the run's readable name, kept in its ``config.json`` (:mod:`engine.runlog.naming`)."""
    parser.add_argument(
        "--name",
        default=None,
        metavar="TEXT",
        help="the run's name, shown in the app's pickers, legends and tables and in the lesson's title "
        "(default: made from what differs: data, changed settings, steps)",
    )


def config_values(config_class: type, args: argparse.Namespace) -> dict[str, Any]:
    """The config fields set by the flags of ``args`` (0 becomes None where 0 means None)."""
    return {
        item.name: item.from_shown(getattr(args, item.name))
        for item in knobs(config_class)
        if item.flag is not None
    }


def config_from_args(config_class: type, args: argparse.Namespace, **more: Any) -> Any:
    """Build (and validate) the config from parsed flags and ``more`` fields; a bad value raises one
    ConfigError line."""
    return config_class(**config_values(config_class, args), **more)


# ---------------------------------------------------------------- --seeds (a group of runs, engine.groups)
MAX_SEEDS = 1000
#: the largest seed any experiment takes (the probe's; SimCSE's and JEPA's knobs stop at 2**32 - 1, checked
#: through the experiment's config before any run starts)
MAX_SEED = 2**63 - 1
DIGITS = frozenset("0123456789")


class CommandLine(Protocol):
    """An experiment's command line: its flags on a parser, its config from the parsed flags."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def config_from_args(self, args: argparse.Namespace) -> Any: ...


@dataclass(frozen=True)
class OwnCommandLine:
    """The command line an experiment declares itself (its flags, its config from them, and its own run, e.g.
    SimCSE's torchrun launch), as functions: plain data that a worker process receives pickled."""

    add_arguments: Callable[[argparse.ArgumentParser], None]
    config_from_args: Callable[[argparse.Namespace], Any]
    run_cli: Callable[[argparse.Namespace, Any], int] | None = None


class KnobFlags:
    """The command line of an experiment that declares none of its own: one flag per knob of its config
    (:func:`add_flags`), its config from them (:func:`config_from_args`)."""

    def __init__(self, config_class: type) -> None:
        self.config_class = config_class

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """One flag per knob of the config."""
        add_flags(parser, self.config_class)

    def config_from_args(self, args: argparse.Namespace) -> Any:
        """The config of the parsed flags; a bad value raises one ConfigError line."""
        return config_from_args(self.config_class, args)


def parse_seeds(text: str, flag: str = "--seeds") -> list[int]:
    """``--seeds 0,1,2`` (those seeds) or ``--seeds 5`` (0 to 4): distinct whole numbers 0 to
    :data:`MAX_SEED` in ASCII digits (``²`` or ``١`` are not seeds), at most :data:`MAX_SEEDS` of them;
    anything else (an empty text included) is one ConfigError line naming the flag."""
    from engine.core.errors import ConfigError

    text = str(text)
    cells = [cell.strip(" \t") for cell in text.split(",")]
    if not all(cell and set(cell) <= DIGITS for cell in cells):
        raise ConfigError(
            f"{flag}: expected a count (5) or seeds separated by commas (0,1,2), got {_shown(text)!r}"
        )
    # a cell of more digits than the largest seed is refused before int() reads it (no 1e6-digit numbers)
    values = [int(cell) if len(cell.lstrip("0")) <= len(str(MAX_SEED)) else MAX_SEED + 1 for cell in cells]
    if len(values) == 1:
        if not 1 <= values[0] <= MAX_SEEDS:
            raise ConfigError(f"{flag}: a count of seeds is 1 to {MAX_SEEDS}, got {_shown(cells[0])}")
        return list(range(values[0]))
    if len(values) > MAX_SEEDS:
        raise ConfigError(f"{flag}: {len(values):,} seeds is more than {MAX_SEEDS}")
    for cell, value in zip(cells, values, strict=True):
        if value > MAX_SEED:
            raise ConfigError(f"{flag}: a seed is 0 to {MAX_SEED}, got {_shown(cell)}")
    if len(set(values)) != len(values):
        raise ConfigError(f"{flag}: a seed is given twice in {_shown(text)!r}")
    return values


def _shown(text: str, most: int = 40) -> str:
    return text if len(text) <= most else f"{text[: most - 3]}..."


def add_seeds_flag(parser: argparse.ArgumentParser, help_text: str | None = None) -> None:
    """``--seeds``: run the experiment once per seed as a group (:mod:`engine.groups`); ``--out`` is then
    the group's folder."""
    parser.add_argument(
        "--seeds",
        metavar="LIST|COUNT",
        help=help_text
        or "run once per seed (0,1,2 or a count: 5 = 0..4) as a group; --out then names the group "
        "(a bare name goes under cache/groups) and the summary gives each headline figure as mean ± std",
    )
