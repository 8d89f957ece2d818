"""A sweep's grid from ``--grid KNOB=V1,V2`` options, each value read and checked through the knob's own
declaration (:mod:`engine.core.knobs`): any knob with a command-line flag may vary (lr, dropout, an ablation
switch, the data, the vectors, the seed). A bad name or value is one ConfigError line naming the option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError, one_line
from engine.core.knobs import Knob, knobs

TRUE, FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")
NONE = ("none", "null")
MAX_TRIALS = 10_000


def find_knob(config_class: type, name: str, option: str) -> Knob:
    """The knob named ``name`` (field name or flag, ``sample_size``, ``sample-size`` or ``--sample-size``)."""
    wanted = name.strip().lstrip("-").replace("-", "_")
    for item in knobs(config_class):
        if item.name == wanted and item.flag is not None:
            return item
    names = ", ".join(item.name for item in knobs(config_class) if item.flag is not None)
    raise ConfigError(f"{option}: no knob {name.strip()!r}; the knobs are {names}")


def parse_value(item: Knob, text: str, option: str) -> Any:
    """One value of ``item`` from its text, as the command line reads it (0 is None where 0 means none),
    checked against the declaration."""
    raw = text.strip()
    try:
        if item.optional and raw.lower() in NONE:
            value: Any = None
        elif item.type is bool:
            if raw.lower() not in TRUE + FALSE:
                raise ConfigError(f"{item.name} must be true or false, got {raw!r}")
            value = raw.lower() in TRUE
        elif item.type is int:
            value = item.from_shown(int(raw))
        elif item.type is float:
            value = float(raw)
        else:
            value = raw
        return item.check(value)
    except ValueError:
        kind = "a whole number" if item.type is int else "a number"
        raise ConfigError(f"{option}: {item.name} must be {kind}, got {raw!r}") from None
    except ConfigError as err:
        raise ConfigError(f"{option}: {one_line(err)}") from None


def parse_grid(config_class: type, options: list[str]) -> dict[str, list[Any]]:
    """``["lr=1e-3,1e-2", "same_mask=true,false"]`` -> ``{"lr": [0.001, 0.01], "same_mask": [True, False]}``
    in the order given; a knob given twice, an empty or repeated value, or more than
    :data:`MAX_TRIALS` combinations is refused."""
    grid: dict[str, list[Any]] = {}
    for text in options:
        option = f"--grid {text}"
        name, equals, values = text.partition("=")
        if not equals or not name.strip() or not values.strip():
            raise ConfigError(f"{option}: expected KNOB=V1,V2 (e.g. --grid lr=1e-3,1e-2)")
        item = find_knob(config_class, name, option)
        if item.name in grid:
            raise ConfigError(f"{option}: {item.name} is given twice")
        parsed = [parse_value(item, value, option) for value in values.split(",")]
        if len(set(map(repr, parsed))) != len(parsed):
            raise ConfigError(f"{option}: a value is given twice")
        grid[item.name] = parsed
    trials = 1
    for values in grid.values():
        trials *= len(values)
    if trials > MAX_TRIALS:
        raise ConfigError(f"--grid: {trials:,} trials is more than {MAX_TRIALS:,}")
    return grid


def check_files(config_class: type, fields: dict[str, Any], option: str | None = None) -> None:
    """A value of a data knob (declared ``data_file=True``) that names a missing file is one ConfigError line
    naming ``option`` (default: the knob's flag), before any run starts. The probe's ``data`` is a built-in
    set's name or a file; for the others a bare word (no folder, no extension) is left to the run
    (``wiki1m``)."""
    from engine.data.registry import DATASETS

    declared = {item.name: item for item in knobs(config_class)}
    for name in (item.name for item in declared.values() if item.data_file):
        value = fields.get(name)
        if not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        if text.lower() in DATASETS:
            continue
        path = Path(text).expanduser()
        named_file = name in ("data", "vectors") or "/" in text or "\\" in text or bool(path.suffix)
        if named_file and not path.exists():
            what = "no built-in data set or file" if name == "data" else "no file"
            raise ConfigError(f"{option or declared[name].flag}: {what} {text!r}")
