"""A knob's value as text and back, for a link that opens a page's settings (``?steps=300&same_mask=true``).

:func:`parse` reads one text by the knob's declaration (its type, its range or choices, its "0 means None"
convention) and raises one :class:`~engine.core.errors.ConfigError` line for a bad value; :func:`text` writes
a config value so that :func:`parse` gives it back; :func:`read` reads many (the known and good ones) and
says why each other was ignored. Nothing here knows a page: the app decides which knobs a link may set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.errors import ConfigError
from engine.core.knobs import Knob

TRUE = ("true", "1", "yes", "on")
FALSE = ("false", "0", "no", "off")
MOST = 200  # a longer text is no knob's value (and is not repeated in a note)


def parse(item: Knob, raw: str) -> Any:
    """The config value that ``raw`` names for ``item``; one ConfigError line when it names none."""
    value = str(raw).strip()
    if len(value) > MOST:
        raise ConfigError(f"{item.name}: a value of {len(value):,} characters is too long")
    if item.type is bool:
        if value.lower() in TRUE:
            return True
        if value.lower() in FALSE:
            return False
        raise ConfigError(f"{item.name}: expected true or false, got {value!r}")
    if item.optional and value.lower() in ("", "none"):
        return item.check(None)
    if item.type in (int, float):
        number = _number(item, value)
        if item.type is int and item.zero and number == 0:
            return None
        return item.check(number)
    return item.check(value)


def _number(item: Knob, value: str) -> int | float:
    """``value`` read as the knob's number type: a whole number for an int, a finite one for a float."""
    try:
        number = item.type(value)
    except ValueError:
        what = "a whole number" if item.type is int else "a number"
        raise ConfigError(f"{item.name}: expected {what}, got {value!r}") from None
    if item.type is float and not math.isfinite(number):
        raise ConfigError(f"{item.name}: expected a finite number, got {value!r}")
    return number


def text(item: Knob, value: Any) -> str:
    """``value`` of ``item`` as a link writes it (:func:`parse` reads it back to the same value)."""
    if value is None:
        return "0" if item.zero else ""
    if item.type is bool:
        return "true" if value else "false"
    if item.type is float:
        return repr(float(value))
    return str(value)


def read(items: Iterable[Knob], params: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The values that ``params`` (a link's ``name=text`` pairs) set for the knobs ``items``, and one line
    per pair that was ignored (an unknown name, a bad value), in the pairs' order."""
    by_name = {item.name: item for item in items}
    values: dict[str, Any] = {}
    ignored: list[str] = []
    for name, raw in params.items():
        item = by_name.get(name)
        if item is None:
            shown = name if len(name) <= 40 else name[:37] + "..."
            ignored.append(f"{shown!r} is not a setting of this page")
            continue
        try:
            values[name] = parse(item, raw)
        except ConfigError as err:
            ignored.append(str(err))
    return values, ignored


def changed(items: Iterable[Knob], config: Mapping[str, Any]) -> dict[str, str]:
    """The ``name=text`` pairs of the values of ``config`` that differ from their knob's default, in the
    knobs' order (a link to these settings, as short as it can be)."""
    found = {}
    for item in items:
        if item.name in config and config[item.name] != item.default:
            found[item.name] = text(item, config[item.name])
    return found
