"""The sidebar as the pages draw it agrees with the knobs' declarations (engine.core.knobs): every knob that
the app shows is found on its page, under its key, with the declared label, help (its range), first value,
range and options; a page that drew a knob by hand with another default or range would fail here. The CLI,
the validation and the widget specs are walked in tests/core/test_knobs.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from engine.core.knobs import knobs
from engine.experiments import EXPERIMENTS
from ui import fields

PAGES = {kind: experiment.section.page for kind, experiment in EXPERIMENTS.items()}
#: session values that reveal the widgets a page draws only in some states (the margin of the triplet
#: objective, the α of supervised SimCSE, the rate of crop / word deletion)
STATES: dict[str, list[dict[str, Any]]] = {
    "probe": [{}, {"probe.objective": "triplet"}],
    "simcse": [{}, {"simcse.mode": True}, {"simcse.mode": False, "simcse.augment": "crop"}],
    "jepa": [{}, {"jepa.view": "crop"}],
}
ELEMENTS = {
    "number": "number_input",
    "slider": "slider",
    "select": "selectbox",
    "radio": "radio",
    "toggle": "toggle",
    "checkbox": "checkbox",
    "text": "text_input",
}


def widget_drift(shown: fields.WidgetSpec, element: Any) -> list[str]:
    """Every way a drawn widget differs from its spec (empty: none)."""
    found = []
    if element.label != shown.label:
        found.append(f"label {element.label!r}, declared {shown.label!r}")
    if element.value != shown.value or type(element.value) is not type(shown.value):
        found.append(f"first value {element.value!r}, declared {shown.value!r}")
    if (
        shown.widget in ("number", "text", "toggle", "checkbox", "select", "radio")
        and element.help != shown.help
    ):
        found.append(f"help {element.help!r}, declared {shown.help!r}")
    if shown.widget == "slider" and (element.min, element.max) != (shown.low, shown.high):
        found.append(f"range {element.min}..{element.max}, declared {shown.low}..{shown.high}")
    if shown.options is not None and tuple(element.options) != tuple(shown.options):
        found.append(f"options {element.options}, declared {shown.options}")
    return found


def test_every_experiment_has_a_page_here() -> None:
    assert set(PAGES) == set(EXPERIMENTS) == set(STATES)


@pytest.mark.parametrize("kind", list(PAGES))
def test_every_drawn_knob_is_on_its_page_as_declared(app, kind: str) -> None:
    expected = {
        item.name: fields.spec(EXPERIMENTS[kind], item.name) for item in fields.drawn_knobs(EXPERIMENTS[kind])
    }
    seen: dict[str, list[str]] = {}
    for state in STATES[kind]:
        app.switch_page(PAGES[kind])
        for key, value in state.items():
            app.session_state[key] = value
        app.run()
        assert not app.exception
        for name, shown in expected.items():
            if name in seen:
                continue
            found = [e for e in getattr(app, ELEMENTS[shown.widget]) if e.key == shown.key]
            if found:
                seen[name] = widget_drift(shown, found[0])
    assert set(seen) == set(expected), f"not drawn: {sorted(set(expected) - set(seen))}"
    assert {name: drift for name, drift in seen.items() if drift} == {}


@pytest.mark.parametrize("kind", list(PAGES))
def test_a_number_field_keeps_its_type_when_its_value_comes_from_the_session(app, kind: str) -> None:
    """On every run after the first the fields take their values from the session (no first value given):
    a whole-number field must stay one (Streamlit made it a float without a step: "Batch size 64.00")."""
    app.switch_page(PAGES[kind]).run()
    app.run()  # a rerun: every field's value now comes from the session
    numbers = [item for item in fields.drawn_knobs(EXPERIMENTS[kind]) if item.widget == "number"]
    drawn = {element.key: element for element in app.number_input}
    kinds = {0: int, 1: float}  # NumberInput.DataType: what the browser shows ("64" or "64.00")
    wrong = {
        item.name: kinds[drawn[key].proto.data_type]
        for item in numbers
        if (key := fields.key(EXPERIMENTS[kind], item.name)) in drawn
        and kinds[drawn[key].proto.data_type] is not item.type
    }
    assert numbers and wrong == {}


def test_the_composed_widgets_are_the_page_knobs(app) -> None:
    """The data choices a page draws itself use the key of their field, so that a preset can show them."""
    app.switch_page(PAGES["probe"]).run()
    assert app.selectbox(key=fields.key(EXPERIMENTS["probe"], "data")).value == "demo"
    assert app.radio(key=fields.key(EXPERIMENTS["probe"], "label_col")).value == "topic"
    app.switch_page(PAGES["simcse"]).run()
    assert app.toggle(key=fields.key(EXPERIMENTS["simcse"], "probe")).value is True
    assert all(
        item.widget == "page"
        for kind in PAGES
        for item in knobs(EXPERIMENTS[kind].config_class)
        if item.name in fields.composed(EXPERIMENTS[kind])
    )


def test_a_drifted_widget_is_found() -> None:
    """The walk is not vacuous: a widget with another first value, range, label or options is reported."""
    steps = fields.spec(EXPERIMENTS["probe"], "steps")
    drawn = SimpleNamespace(label="Steps", value=200, help=steps.help.replace("1,000,000", "20,000"))
    found = " ".join(widget_drift(steps, drawn))
    assert "label" in found and "first value 200" in found and "help" in found
    dropout = fields.spec(EXPERIMENTS["simcse"], "dropout")
    slider = SimpleNamespace(label=dropout.label, value=dropout.value, help="", min=0.0, max=0.5)
    assert widget_drift(dropout, slider) == [f"range 0.0..0.5, declared {dropout.low}..{dropout.high}"]
    augment = fields.spec(EXPERIMENTS["simcse"], "augment")
    radio = SimpleNamespace(label=augment.label, value="none", help=augment.help, options=["none", "crop"])
    assert "options" in " ".join(widget_drift(augment, radio))
