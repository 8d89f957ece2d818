"""Each knob of an experiment declared once: a field of its config dataclass, with its metadata.

A config field is declared with :func:`knob` (``steps: int = knob(1000, low=1, high=MAX_STEPS, ...)``); its
metadata says everything the other interfaces need: the type (from the annotation), the default, the range
(``low``/``high``, each open or closed) or the choices, the unit, a one-line help, the label a page shows, the
CLI flag (``--steps``, from the field name), whether a preset may set it, the widget the app draws for it, and
the "0 means None" convention of the optional counts (``zero="all"``: 0 on the command line and in the
sidebar means no limit). From it are generated:

- the checks of a config (:func:`validate`, called by the config's ``__post_init__``: one ConfigError line in
  the words of :mod:`engine.core.validate`); cross-field checks stay as code in the config;
- the flags of ``python -m engine probe|simcse`` (:mod:`engine.core.flags`);
- the sidebar widgets of the app (``ui.fields``);
- the table of ``python -m engine settings --knobs`` (:func:`table`).

A knob that several experiments share (the data folder, the device, the seed, the encoder-training knobs of
SimCSE and JEPA) is declared once in :mod:`engine.core.shared_knobs` and reused by each config; an
experiment's copy that differs says why (``override=``).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Sequence
from typing import Any

from engine.core.errors import ConfigError
from engine.core.validate import require_choice, require_int, require_number

#: the widgets a declaration may ask for; "page": the page draws it itself (a data choice), None: no widget
WIDGETS = ("number", "checkbox", "toggle", "select", "radio", "slider", "text", "page")
#: how a page shows a config's value in a choice it composes itself (``composed=``)
COMPOSED_WIDGETS = ("text", "switch", "encoder", "demo-label")
_KEY = "knob"
_DERIVE = "derive"  # flag=_DERIVE: ``--field-name``


@dataclasses.dataclass(frozen=True)
class Knob:
    """One config field and its metadata (see :func:`knob`); ``type`` is int, float, bool or str."""

    name: str
    type: type
    optional: bool  # None is a value of the field
    default: Any
    help: str
    label: str = ""
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] | None = None
    unit: str = ""
    flag: str | None = None
    metavar: str | None = None
    preset: bool = True
    widget: str | None = None
    zero: str | None = None
    what: str = ""
    step: float | None = None
    fmt: str | None = None
    on: Any = None
    options: tuple[str, ...] | None = None
    placeholder: str | None = None
    override: str = ""
    named: bool = True
    recorded: bool = False
    data_file: bool = False
    composed: str | None = None

    @property
    def ranged(self) -> bool:
        return self.low is not None

    def check(self, value: Any) -> Any:
        """``value`` if it is a valid value of this knob (a float knob's value as float), else one
        :class:`~engine.core.errors.ConfigError` line naming the field (``what``) and its range or choices."""
        what = self.what or self.name
        if value is None and self.optional:
            return None
        if self.type is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{what} must be true or false, got {value!r}")
            return value
        if self.choices is not None:
            require_choice(what, value, self.choices)
            return value
        if self.type is int:
            require_int(what, value, int(self.low), int(self.high))
            return value
        if self.type is float:
            return require_number(
                what, value, self.low, self.high, open_low=self.open_low, open_high=self.open_high
            )
        return value

    def bounds_text(self) -> str:
        """The range in words: ``1 to 1,000,000``; an open end says ``(excluded)``."""
        low = number_text(self.low) + (" (excluded)" if self.open_low else "")
        high = number_text(self.high) + (" (excluded)" if self.open_high else "")
        return f"{low} to {high}"

    def range_text(self) -> str:
        """The range with the "0 means …" convention: ``0 (all) or 2 to 10,000,000``; choices joined."""
        if self.choices is not None:
            return ", ".join(self.choices)
        if not self.ranged:
            return ""
        zero = f"0 ({self.zero}) or " if self.zero else ""
        return zero + self.bounds_text()

    def in_range(self, value: float) -> bool:
        """Whether a number typed for this knob is allowed (0 too when it means None)."""
        if self.zero and value == 0:
            return True
        low_ok = self.low < value if self.open_low else self.low <= value
        high_ok = value < self.high if self.open_high else value <= self.high
        return low_ok and high_ok

    def shown_default(self) -> Any:
        """The default as the CLI and a number field show it: 0 for None where 0 means None."""
        return 0 if self.zero and self.default is None else self.default

    def from_shown(self, value: Any) -> Any:
        """A value typed on the CLI or in a field as the config's value (0 -> None where 0 means None)."""
        return None if self.zero and value == 0 else value


def number_text(value: float) -> str:
    """``1,000,000`` for whole numbers from 1 up, ``0.001``/``1e-06`` otherwise (as the fields show them)."""
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:g}"


def knob(
    default: Any,
    *,
    help: str,
    label: str = "",
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    choices: Sequence[str] | None = None,
    unit: str = "",
    flag: str | None = _DERIVE,
    metavar: str | None = None,
    preset: bool = True,
    widget: str | None = None,
    zero: str | None = None,
    what: str = "",
    step: float | None = None,
    fmt: str | None = None,
    on: Any = None,
    options: Sequence[str] | None = None,
    placeholder: str | None = None,
    override: str = "",
    named: bool = True,
    recorded: bool = False,
    data_file: bool = False,
    composed: str | None = None,
) -> Any:
    """A config field with its metadata (a :func:`dataclasses.field`).

    ``default``: the value; ``help``: one line (the CLI's help and the widget's); ``label``: what a page
    shows;
    ``low``/``high`` (``open_low``/``open_high``): the range of a number, required for int and float fields;
    ``choices``: the allowed texts; ``unit``: the unit, for the tables; ``flag``: the CLI flag (default
    ``--field-name``; None: no flag); ``preset``: whether a preset may set it (False: the user's own, such as
    the device); ``widget``: the sidebar widget (``number``, ``checkbox``, ``toggle``, ``select``, ``radio``,
    ``slider``, ``text``; ``page``: a data choice the page draws itself; None: not in the app); ``zero``: for
    an optional count, what 0 means on the CLI and in a field (the config holds None); ``what``: the name in
    error messages (default the field name); ``step``/``fmt``: the number field's increment and format;
    ``on``: the value of a two-choice field when its toggle is on; ``options``: the choices a select offers
    for a free-text field (the device); ``placeholder``: a text field's hint; ``override``: why this
    experiment's copy of a shared knob differs from its declaration in :mod:`engine.core.shared_knobs` (empty:
    it does not differ).

    What the other parts read of it: ``named`` (False: it says where or how often a run is measured, kept or
    saved, not what it learns, and never enters a generated run name, :mod:`engine.runlog.naming`);
    ``recorded``: recorded with a lesson claim's figures (:mod:`engine.lessons.numbers`); ``data_file``: its
    value names a data file or a built-in set, which must exist before a sweep runs
    (:mod:`engine.sweep.grid`); ``composed``: a ``widget="page"`` choice that the page composes itself and a
    preset may set, and how its widget shows a config's value (one of :data:`COMPOSED_WIDGETS`: the text,
    an on/off switch, the encoder picker, the demo's label switch; ``ui.fields``).
    """
    if widget is not None and widget not in WIDGETS:
        raise ValueError(f"unknown widget {widget!r}: use one of {', '.join(WIDGETS)}")
    if composed is not None and (composed not in COMPOSED_WIDGETS or widget != "page"):
        shown = ", ".join(COMPOSED_WIDGETS)
        raise ValueError(f"composed={composed!r}: needs widget='page' and one of {shown}")
    spec = {
        "default": default,
        "help": help,
        "label": label,
        "low": low,
        "high": high,
        "open_low": open_low,
        "open_high": open_high,
        "choices": None if choices is None else tuple(choices),
        "unit": unit,
        "flag": flag,
        "metavar": metavar,
        "preset": preset,
        "widget": widget,
        "zero": zero,
        "what": what,
        "step": step,
        "fmt": fmt,
        "on": on,
        "options": None if options is None else tuple(options),
        "placeholder": placeholder,
        "override": override,
        "named": named,
        "recorded": recorded,
        "data_file": data_file,
        "composed": composed,
    }
    return dataclasses.field(default=default, metadata={_KEY: spec})


def _field_type(hint: Any) -> tuple[type, bool]:
    """(the type, whether None is allowed) of an annotation such as ``int`` or ``str | None``."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(args) != 1:
            raise TypeError(f"a knob has one type (and None), got {hint}")
        return args[0], True
    return hint, False


@functools.cache
def knobs(config_class: type) -> tuple[Knob, ...]:
    """The knobs of a config dataclass, in field order; a field declared without :func:`knob`, or a
    declaration that lacks what its type needs (a range for a number), is a TypeError at import time."""
    hints = typing.get_type_hints(config_class)
    found = []
    for field in dataclasses.fields(config_class):
        spec = field.metadata.get(_KEY)
        if spec is None:
            raise TypeError(
                f"{config_class.__name__}.{field.name} is not declared with engine.core.knobs.knob"
            )
        kind, optional = _field_type(hints[field.name])
        flag = spec["flag"]
        if flag == _DERIVE:
            flag = "--" + field.name.replace("_", "-")
        made = Knob(name=field.name, type=kind, optional=optional, **{**spec, "flag": flag})
        _check_declaration(config_class, made)
        found.append(made)
    return tuple(found)


def _check_declaration(config_class: type, item: Knob) -> None:
    where = f"{config_class.__name__}.{item.name}"
    if item.type not in (int, float, bool, str):
        raise TypeError(f"{where}: a knob is an int, float, bool or str, not {item.type}")
    if item.type in (int, float) and (item.low is None or item.high is None):
        raise TypeError(f"{where}: a number knob needs low and high")
    if item.zero and not (item.type is int and item.optional and item.low > 0):
        raise TypeError(f"{where}: zero= is for an optional count whose range starts above 0")
    if item.widget not in (None, "page") and not item.label:
        raise TypeError(f"{where}: a knob drawn as a widget needs a label")
    if item.widget == "toggle" and item.type is not bool and (item.choices is None or len(item.choices) != 2):
        raise TypeError(f"{where}: a toggle is a bool or a choice of two")
    item.check(item.default)


def knob_of(config_class: type, name: str) -> Knob:
    for item in knobs(config_class):
        if item.name == name:
            return item
    raise KeyError(f"{config_class.__name__} has no knob {name!r}")


def validate(config: Any) -> None:
    """Check every field of ``config`` against its declaration (float fields stored as float); the first bad
    value raises one ConfigError line. Each config's ``__post_init__`` calls it before its cross-field
    checks."""
    for item in knobs(type(config)):
        object.__setattr__(config, item.name, item.check(getattr(config, item.name)))


def table(config_class: type) -> list[dict[str, str]]:
    """One row per knob: its flag, type, default, range or choices, unit and help (for the settings table)."""
    rows = []
    for item in knobs(config_class):
        default = item.shown_default()
        rows.append(
            {
                "field": item.name,
                "flag": item.flag or "",
                "type": item.type.__name__ + (" or none" if item.optional and not item.zero else ""),
                "default": "" if default is None else str(default),
                "range": item.range_text(),
                "unit": item.unit,
                "meaning": item.help,
            }
        )
    return rows


def markdown_table(config_class: type) -> str:
    """The knobs of one experiment as a Markdown table (``python -m engine settings --knobs --markdown``)."""
    lines = [
        "| field | flag | type | default | range or choices | unit | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table(config_class):
        cells = [f"`{row['field']}`", f"`{row['flag']}`" if row["flag"] else "", row["type"]]
        cells += [f"`{row['default']}`" if row["default"] else "", row["range"], row["unit"], row["meaning"]]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
