"""The sidebar widgets of an experiment's knobs, made from their declarations (:mod:`engine.core.knobs`).

The functions of a page's knobs take the registered experiment (:class:`~engine.core.declaration.Experiment`)
whose page draws them. :func:`draw` draws one knob as the widget its declaration names (number, checkbox,
toggle, select, radio, slider, text) with its label, help, default and range, under the key ``<kind>.<field>``
(:func:`key`), and returns the config's value. A number field states its range at the end of its help and
takes any number typed: a value outside the range (or an empty field) is shown as a message under the field
and keeps the run from starting (:func:`problems`) instead of being silently refused by the browser; where 0
means None (``zero=``) the field shows 0. A preset, or the Overview's demo, shows its settings in the sidebar:
:func:`show_settings` queues a config's values for the page's widgets (the generated ones, and the data
choices a page draws itself: the knobs declared ``composed=``, :func:`composed`), which :func:`apply_shown`
writes into their keys before the page draws them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.core.declaration import Experiment
from engine.core.knobs import Knob, knob_of, knobs

KEEP = {"persist_state": "session"}  # widget values survive page switches
SLIDER_FORMAT = "%.2f"  # a rate shown with two decimals (0.10, not 0.1)

_PROBLEMS = "_fields.problems"  # session key: {page prefix: [problem line, ...]} of the current run
_SHOWN = "_fields.shown"  # session key: {page prefix: {widget key: value}} to write before the widgets

#: the encoder picker's value for the bundled model (a run's encoder None; :func:`ui.controls.encoder_choice`)
BUNDLED = "bundled"


def encoder_shown(value: Any) -> str:
    """The encoder picker's value (:func:`ui.controls.encoder_choice`) for a config's ``encoder``: the
    bundled model or a derived start; anything else (a saved name, a folder) is not shown (ValueError)."""
    from engine.encoders.starts import start_named

    if value is None:
        return BUNDLED
    start = start_named(value)
    if start is None:
        raise ValueError(f"the picker does not show {value!r}")
    return start.name


def demo_label_shown(value: Any) -> str:
    """The demo label switch's value for a config's ``label_col`` (:func:`ui.controls.demo_label_choice`)."""
    from engine.data.builtin import DEMO_LABELS

    return value if value in DEMO_LABELS else DEMO_LABELS[0]


#: a composed widget's value for a config value, by the knob's ``composed`` (the widget its page draws:
#: :data:`engine.core.knobs.COMPOSED_WIDGETS`)
SHOWN_AS: dict[str, Callable[[Any], Any]] = {
    "text": str,
    "switch": bool,
    "encoder": encoder_shown,
    "demo-label": demo_label_shown,
}


def composed(experiment: Experiment) -> dict[str, Callable[[Any], Any]]:
    """The data choices the page of ``experiment`` draws itself that a preset may set (the knobs declared
    ``composed=``): field -> its widget's value for a config value."""
    return {item.name: SHOWN_AS[item.composed] for item in knobs(experiment.config_class) if item.composed}


def key(experiment: Experiment, name: str) -> str:
    """The session key of the widget of field ``name`` on the page of ``experiment``: ``<kind>.<name>``."""
    return f"{experiment.kind}.{name}"


def drawn_knobs(experiment: Experiment) -> list[Knob]:
    """The knobs of ``experiment`` that the app draws from their declaration."""
    return [item for item in knobs(experiment.config_class) if item.widget not in (None, "page")]


# ------------------------------------------------------------------------------------ the widget spec


@dataclass(frozen=True)
class WidgetSpec:
    """How a knob is drawn: the widget, its key, label, help, first value, range or options."""

    widget: str
    key: str
    label: str
    help: str
    value: Any
    low: float | None = None
    high: float | None = None
    options: tuple[str, ...] | None = None


def spec(experiment: Experiment, name: str) -> WidgetSpec:
    """The widget of the knob ``name`` of ``experiment`` (no Streamlit: the field-walking test reads it)."""
    item = knob_of(experiment.config_class, name)
    if item.widget in (None, "page"):
        raise KeyError(f"{key(experiment, name)} is not drawn from its declaration")
    help_text = item.help
    if item.widget == "number":
        help_text = f"{item.help} Range: {item.range_text()}."
    options = (item.choices or item.options) if item.widget in ("select", "radio") else None
    return WidgetSpec(
        widget=item.widget,
        key=key(experiment, name),
        label=item.label,
        help=help_text,
        value=widget_value(item, item.default),
        low=item.low,
        high=item.high,
        options=options,
    )


def widget_value(item: Knob, value: Any) -> Any:
    """A config value as its widget holds it (0 for None where 0 means None; a toggle's on/off)."""
    if item.widget == "toggle" and item.type is not bool:
        return value == item.on
    if item.widget == "text":
        return "" if value is None else str(value)
    if item.widget == "number":
        value = item.shown_default() if value is None else value
        return item.type(value)
    if item.widget == "slider":
        return float(value)
    return value


def config_value(item: Knob, value: Any) -> Any:
    """A widget's value as the config's value (the inverse of :func:`widget_value`)."""
    if item.widget == "toggle" and item.type is not bool:
        return item.on if value else next(choice for choice in item.choices if choice != item.on)
    if item.widget == "text":
        return str(value or "").strip() or None
    if item.widget == "number":
        return item.from_shown(item.type(value))
    if item.type is bool:
        return bool(value)
    return item.type(value)


def problem(item: Knob, value: float | None) -> str | None:
    """Why a number typed into the field of ``item`` cannot start a run (None: it can)."""
    zero = f"0 ({item.zero}) or " if item.zero else ""
    if value is None:
        return f"“{item.label}” is empty: enter {zero}a number from {item.bounds_text()}."
    if item.in_range(value):
        return None
    return (
        f"“{item.label}” must be {zero}from {item.bounds_text()}: {value:g} is outside that range, so the "
        "run cannot start."
    )


# ------------------------------------------------------------------------------------------ drawing


def first_value(key_name: str, **value: Any) -> dict[str, Any]:
    """``value`` (a widget's first value, e.g. ``value=3`` or ``index=0``) unless the session already holds
    the widget's value (a preset's or the demo's, :func:`apply_shown`): a widget given both a first value
    and a value set through the Session State API makes Streamlit log a warning (and shows the session's)."""
    return {} if key_name in st.session_state else value


def draw(
    experiment: Experiment,
    name: str,
    *,
    box: Any = None,
    disabled: bool = False,
    help: str | None = None,
    fixed: float | None = None,
) -> Any:
    """Draw the knob ``name`` of ``experiment`` in ``box`` (default the sidebar) and return the config's
    value: a number outside its range is recorded as a problem of the page and its default returned; ``help``
    replaces the declared help (e.g. why a widget is off); ``fixed``: the value a disabled slider shows (and a
    run uses) instead of the one the user left in it (the dropout rate that "Same mask" fixes)."""
    item = knob_of(experiment.config_class, name)
    shown = spec(experiment, name)
    box = box if box is not None else st.sidebar
    text = shown.help if help is None else help
    common = {"key": shown.key, "help": text, "disabled": disabled, **KEEP}
    if item.widget == "number":
        # a whole-number field keeps its type when its value comes from the session (no ``value`` given):
        # Streamlit takes a field's type from its value, else its step, else makes it a float ("64.00")
        step = item.type(item.step) if item.step is not None else 1 if item.type is int else None
        first = first_value(shown.key, value=shown.value)
        value = box.number_input(shown.label, step=step, format=item.fmt, **first, **common)
        found = problem(item, value)
        if found is None:
            return config_value(item, value)
        box.error(found, icon=":material/error:")
        add_problem(experiment.kind, found)
        return item.default
    if item.widget in ("select", "radio"):
        options = list(shown.options)
        draw_choice = box.selectbox if item.widget == "select" else box.radio
        value = draw_choice(
            shown.label, options, **first_value(shown.key, index=options.index(shown.value)), **common
        )
    elif item.widget == "slider":
        first = first_value(shown.key, value=shown.value)
        low, high = float(item.low), float(item.high)
        shows = SLIDER_FORMAT if fixed is None else f"{fixed:.2f} (fixed)"  # sprintf shows it as it is
        value = box.slider(shown.label, low, high, step=item.step, format=shows, **first, **common)
    elif item.widget == "toggle":
        value = box.toggle(shown.label, **first_value(shown.key, value=shown.value), **common)
    elif item.widget == "checkbox":
        value = box.checkbox(shown.label, **first_value(shown.key, value=shown.value), **common)
    else:
        value = box.text_input(shown.label, placeholder=item.placeholder, **common)
    return config_value(item, value)


def draw_all(experiment: Experiment, names: list[str], box: Any = None) -> dict[str, Any]:
    """Draw several knobs of ``experiment`` in order; their config values by field name."""
    return {name: draw(experiment, name, box=box) for name in names}


# ---------------------------------------------------------------------------- problems of the fields


def begin_fields(prefix: str) -> None:
    """Forget the field problems of the last run of the page ``prefix`` (its fields are drawn anew)."""
    st.session_state.setdefault(_PROBLEMS, {})[prefix] = []


def problems(prefix: str) -> list[str]:
    """The field problems of the page ``prefix`` in this run (values outside their range, empty fields)."""
    return list(st.session_state.get(_PROBLEMS, {}).get(prefix, []))


def add_problem(prefix: str, text: str) -> None:
    st.session_state.setdefault(_PROBLEMS, {}).setdefault(prefix, []).append(text)


# ----------------------------------------------------------------------------- presets in the sidebar


def shown_values(experiment: Experiment, config: dict[str, Any]) -> dict[str, Any]:
    """The widget values (by key) that show ``config`` in the sidebar of ``experiment``."""
    values = {}
    for item in drawn_knobs(experiment):
        if item.name in config:
            with contextlib.suppress(TypeError, ValueError):
                values[key(experiment, item.name)] = widget_value(item, config[item.name])
    for name, convert in composed(experiment).items():
        if name in config:
            with contextlib.suppress(TypeError, ValueError):
                values[key(experiment, name)] = convert(config[name])
    return values


def show_settings(experiment: Experiment, config: dict[str, Any]) -> None:
    """Queue a config's values for the sidebar of ``experiment`` (its page writes them into its widgets
    before drawing them, :func:`apply_shown`): after a preset or the demo, the sidebar shows what ran."""
    st.session_state.setdefault(_SHOWN, {})[experiment.kind] = shown_values(experiment, config)


def apply_shown(experiment: Experiment) -> None:
    """Write the values queued by :func:`show_settings` into the widget keys of ``experiment`` (before its
    widgets are drawn in this run)."""
    values = st.session_state.get(_SHOWN, {}).pop(experiment.kind, None)
    for name, value in (values or {}).items():
        st.session_state[name] = value
