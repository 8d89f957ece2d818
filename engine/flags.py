"""The flags of ``python -m engine <experiment>``, made from the config's declarations (:mod:`engine.knobs`).

Each knob with a flag becomes one option: a bool a ``store_true`` switch (``--same-mask``), or when it
defaults to true a ``--x/--no-x`` pair (``--predictor/--no-predictor``), a choice an
option with ``choices``, a number an option of its type whose help ends with its default and range, a text an
option (``metavar`` where declared). An optional count whose 0 means None (``zero=``) defaults to 0 on the
command line and 0 becomes None in the config (``--eval-limit 0``: all pairs).
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.knobs import Knob, knobs, number_text


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
        if item.flag is None:
            continue
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
        parser.add_argument(item.flag, **options)


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


def parse_seeds(text: str, flag: str = "--seeds") -> list[int]:
    """``--seeds 0,1,2`` (those seeds) or ``--seeds 5`` (0 to 4): distinct whole numbers >= 0; anything else
    is one ConfigError line naming the flag."""
    from engine.errors import ConfigError

    cells = [cell.strip() for cell in str(text).split(",")]
    if not all(cell.isdigit() for cell in cells):
        raise ConfigError(f"{flag}: expected a count (5) or seeds separated by commas (0,1,2), got {text!r}")
    values = [int(cell) for cell in cells]
    if len(values) == 1 and "," not in str(text):
        if not 1 <= values[0] <= MAX_SEEDS:
            raise ConfigError(f"{flag}: a count of seeds is 1 to {MAX_SEEDS}, got {values[0]}")
        return list(range(values[0]))
    if len(set(values)) != len(values):
        raise ConfigError(f"{flag}: a seed is given twice in {text!r}")
    return values


def add_seeds_flag(parser: argparse.ArgumentParser) -> None:
    """``--seeds``: run the experiment once per seed as a group (:mod:`engine.groups`); ``--out`` is then
    the group's folder."""
    parser.add_argument(
        "--seeds",
        metavar="LIST|COUNT",
        help="run once per seed (0,1,2 or a count: 5 = 0..4) as a group; --out then names the group "
        "(a bare name goes under cache/groups) and the summary gives each headline figure as mean ± std",
    )
