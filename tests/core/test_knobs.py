"""Every knob is declared once (engine.core.knobs): this walks every field of every experiment's config and
checks that its CLI flag, its validation, its sidebar widget's spec, the presets and the settings table agree
with the declaration, so that a drift between them fails here. The widgets as the pages draw them are checked
with AppTest in tests/pages/test_knob_widgets.py."""

from __future__ import annotations

import argparse
import dataclasses
import math

import pytest

from engine import cli
from engine.core import flags
from engine.core.errors import ConfigError
from engine.core.knobs import Knob, knob, knobs
from engine.experiments import EXPERIMENTS
from engine.lessons.presets import presets
from ui import fields

KINDS = list(EXPERIMENTS)
ALL = [(kind, item) for kind in KINDS for item in knobs(EXPERIMENTS[kind].config_class)]
RANGED = [(kind, item) for kind, item in ALL if item.ranged]


def _id(case: tuple[str, Knob]) -> str:
    return f"{case[0]}.{case[1].name}"


def parser_of(kind: str) -> argparse.ArgumentParser:
    sub = cli.build_parser()._subparsers._group_actions[0]
    return sub.choices[kind]


def cli_drift(config_class: type, parser: argparse.ArgumentParser) -> list[str]:
    """Every way the parser's options differ from the knobs of ``config_class`` (empty: none)."""
    actions = {action.dest: action for action in parser._actions}
    found = []
    for item in knobs(config_class):
        action = actions.get(item.name)
        if item.flag is None:
            if action is not None:
                found.append(f"{item.name}: declared without a flag, but the CLI has {action.option_strings}")
            continue
        if action is None or item.flag not in action.option_strings:
            found.append(f"{item.name}: no flag {item.flag}")
            continue
        if item.type is bool:
            if action.nargs != 0 or action.default is not item.default:
                found.append(f"{item.name}: {item.flag} is not a switch defaulting to {item.default}")
            continue
        if action.default != item.shown_default() or type(action.default) is not type(item.shown_default()):
            found.append(f"{item.name}: CLI default {action.default!r}, declared {item.shown_default()!r}")
        if action.type is not item.type:
            found.append(f"{item.name}: CLI type {action.type}, declared {item.type}")
        if tuple(action.choices or ()) != tuple(item.choices or ()):
            found.append(f"{item.name}: CLI choices {action.choices}, declared {item.choices}")
    return found


def outside(item: Knob) -> list[float]:
    """Values just outside the range of a ranged knob (0 excepted where it means None)."""
    if item.type is int:
        below, above = item.low - 1, item.high + 1
    else:
        below = item.low if item.open_low else math.nextafter(item.low, -math.inf)
        above = item.high if item.open_high else math.nextafter(item.high, math.inf)
    return [below, above]


def bounds(item: Knob) -> list[float]:
    """The allowed ends of the range (an open end: the nearest number inside)."""
    low = math.nextafter(item.low, math.inf) if item.open_low else item.low
    high = math.nextafter(item.high, -math.inf) if item.open_high else item.high
    return [item.type(low), item.type(high)]


#: a knob whose rule with another field (a config's ``__post_init__``) would refuse some of its own range: the
#: partner's value that lets the whole range through (JEPA: mask_min <= mask_max)
PARTNERS = {("JEPAConfig", "mask_min"): {"mask_max": 0.9}, ("JEPAConfig", "mask_max"): {"mask_min": 0.0}}


def accepted(config_class: type, name: str, value: object) -> bool:
    try:
        config_class(**{name: value}, **PARTNERS.get((config_class.__name__, name), {}))
    except ConfigError:
        return False
    return True


# ------------------------------------------------------------------------------------- declarations


@pytest.mark.parametrize("kind", KINDS)
def test_every_field_of_every_config_is_a_knob(kind: str) -> None:
    config_class = EXPERIMENTS[kind].config_class
    assert [item.name for item in knobs(config_class)] == [f.name for f in dataclasses.fields(config_class)]
    assert all(item.help.strip() for item in knobs(config_class))


def test_a_field_declared_without_knob_or_without_a_range_is_refused() -> None:
    @dataclasses.dataclass
    class Plain:
        steps: int = 3

    @dataclasses.dataclass
    class Unranged:
        steps: int = knob(3, help="steps")

    with pytest.raises(TypeError, match="not declared with engine.core.knobs.knob"):
        knobs(Plain)
    with pytest.raises(TypeError, match="needs low and high"):
        knobs(Unranged)


# ---------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("kind", KINDS)
def test_the_cli_flags_are_the_declared_knobs(kind: str) -> None:
    assert cli_drift(EXPERIMENTS[kind].config_class, parser_of(kind)) == []


@pytest.mark.parametrize("kind", KINDS)
def test_the_cli_defaults_make_the_declared_defaults(kind: str) -> None:
    config_class = EXPERIMENTS[kind].config_class
    args = parser_of(kind).parse_args(["--out", "x"])
    made = EXPERIMENTS[kind].command_line.config_from_args(args)
    assert dataclasses.asdict(made) == dataclasses.asdict(config_class())


def test_a_drifted_flag_is_found() -> None:
    """The walk is not vacuous: a flag whose default, type or choices differ from the declaration, or that
    is missing, is reported."""
    config_class = EXPERIMENTS["probe"].config_class
    parser = parser_of("probe")
    actions = {action.dest: action for action in parser._actions}
    actions["steps"].default = 200
    actions["lr"].type = str
    actions["objective"].choices = ("classifier",)
    actions["margin"].option_strings = ["--triplet-margin"]
    found = " ".join(cli_drift(config_class, parser))
    assert "steps: CLI default 200, declared 1000" in found
    assert "lr: CLI type" in found and "objective: CLI choices" in found and "margin: no flag" in found


@pytest.mark.parametrize("case", [c for c in RANGED if c[1].flag], ids=_id)
def test_the_cli_accepts_the_bounds_and_refuses_just_outside(case: tuple[str, Knob]) -> None:
    kind, item = case
    parser = parser_of(kind)
    make = EXPERIMENTS[kind].command_line.config_from_args
    partner = [
        f"--{name.replace('_', '-')}={value!r}"
        for name, value in PARTNERS.get((EXPERIMENTS[kind].config_class.__name__, item.name), {}).items()
    ]
    for value in bounds(item):
        config = make(parser.parse_args(["--out", "x", f"{item.flag}={value!r}", *partner]))
        assert getattr(config, item.name) == value
    for value in outside(item):
        with pytest.raises(ConfigError, match=item.what or item.name):
            make(parser.parse_args(["--out", "x", f"{item.flag}={value!r}", *partner]))
    if item.zero:
        assert getattr(make(parser.parse_args(["--out", "x", item.flag, "0"])), item.name) is None


@pytest.mark.parametrize("case", [c for c in ALL if c[1].choices and c[1].flag], ids=_id)
def test_the_cli_offers_exactly_the_declared_choices(case: tuple[str, Knob]) -> None:
    kind, item = case
    parser = parser_of(kind)
    make = EXPERIMENTS[kind].command_line.config_from_args
    for choice in item.choices:
        assert getattr(make(parser.parse_args(["--out", "x", item.flag, choice])), item.name) == choice
    with pytest.raises(SystemExit):
        parser.parse_args(["--out", "x", item.flag, "no-such-choice"])


# ----------------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("case", RANGED, ids=_id)
def test_validation_accepts_the_bounds_and_refuses_just_outside(case: tuple[str, Knob]) -> None:
    kind, item = case
    config_class = EXPERIMENTS[kind].config_class
    for value in bounds(item):
        assert accepted(config_class, item.name, value), value
    for value in [*outside(item), "3", True, None if not item.optional else "x"]:
        assert not accepted(config_class, item.name, value), value
    if item.zero:
        assert not accepted(config_class, item.name, 0)  # the config holds None; 0 is the interfaces' word


@pytest.mark.parametrize("case", [c for c in ALL if c[1].choices or c[1].type is bool], ids=_id)
def test_validation_of_choices_and_switches(case: tuple[str, Knob]) -> None:
    kind, item = case
    config_class = EXPERIMENTS[kind].config_class
    for value in item.choices or (False, True):
        assert item.check(value) == value
    for value in ("no-such-choice", 1, None) if item.choices else ("yes", 1, None):
        assert not accepted(config_class, item.name, value), value


# ------------------------------------------------------------------------------------- widget specs


@pytest.mark.parametrize("case", [c for c in ALL if c[1].widget not in (None, "page")], ids=_id)
def test_the_widget_spec_is_the_declaration(case: tuple[str, Knob]) -> None:
    kind, item = case
    shown = fields.spec(EXPERIMENTS[kind], item.name)
    assert (shown.key, shown.label, shown.widget) == (f"{kind}.{item.name}", item.label, item.widget)
    assert fields.config_value(item, shown.value) == item.default  # the widget starts at the default
    assert (shown.low, shown.high) == (item.low, item.high)
    if item.widget in ("select", "radio"):
        assert shown.options == (item.choices or item.options) and shown.value in shown.options
        assert all(item.check(option) == option for option in shown.options)
    if item.widget == "number":
        assert shown.help.endswith(f" Range: {item.range_text()}.")
        tried = [*bounds(item), *outside(item), *([0] if item.zero else [])]
        for value in tried:
            allowed = accepted(EXPERIMENTS[kind].config_class, item.name, item.from_shown(value))
            assert (fields.problem(item, value) is None) == allowed, value
        assert fields.problem(item, None) is not None  # an empty field
    if item.widget == "slider":
        assert not (item.open_low or item.open_high or item.zero)  # a slider cannot show those


@pytest.mark.parametrize("kind", KINDS)
def test_every_page_widget_is_drawn_or_composed(kind: str) -> None:
    """A knob is drawn from its declaration, composed by its page (a data choice: ``widget="page"``), or
    not in the app; the composed ones that a preset may set are shown in the sidebar after a preset."""
    config_class = EXPERIMENTS[kind].config_class
    composed = {item.name for item in knobs(config_class) if item.widget == "page"}
    assert set(fields.composed(EXPERIMENTS[kind])) <= composed


# ---------------------------------------------------------------------------------- presets, the table


def test_presets_set_only_preset_knobs_and_the_sidebar_shows_them() -> None:
    for name, preset in presets().items():
        config_class = EXPERIMENTS[preset.kind].config_class
        set_by_preset = {field for overrides in [preset.base, *preset.runs.values()] for field in overrides}
        declared = {item.name: item for item in knobs(config_class)}
        for run, overrides in preset.runs.items():  # each run by its own experiment's knobs
            own = {item.name: item for item in knobs(EXPERIMENTS[preset.kind_of(run)].config_class)}
            for field in overrides:
                assert field in own and own[field].preset, f"{name}: {run} sets {field}"
        for field in preset.base:  # the preset's shared fields: the page's own experiment's
            kinds = {preset.kind_of(run) for run in preset.runs} | {preset.kind}
            owners = [{i.name: i for i in knobs(EXPERIMENTS[kind].config_class)} for kind in kinds]
            assert any(field in own and own[field].preset for own in owners), f"{name} sets {field}"
        set_by_preset = {field for field in set_by_preset if field in declared}
        shown = fields.shown_values(EXPERIMENTS[preset.kind], {**preset.base})
        for field in set_by_preset & set(preset.base):
            item = declared[field]
            if item.widget not in (None, "page") or field in fields.composed(EXPERIMENTS[preset.kind]):
                assert fields.key(EXPERIMENTS[preset.kind], field) in shown, f"{name}: {field} is not shown"


def test_the_settings_table_lists_every_knob(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["settings", "--knobs", "--markdown"]) == 0
    table = capsys.readouterr().out
    for _, item in ALL:
        assert f"`{item.name}`" in table and (item.flag is None or f"`{item.flag}`" in table)
        assert item.help.replace("|", "\\|") in table
    assert cli.main(["settings", "--knobs"]) == 0
    plain = capsys.readouterr().out
    assert all(item.name in plain for _, item in ALL)


def test_flag_help_escapes_percent_signs() -> None:
    parser = argparse.ArgumentParser()
    flags.add_flags(parser, EXPERIMENTS["simcse"].config_class)
    assert "100 - k) %" in parser.format_help()
