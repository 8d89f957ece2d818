"""A knob several experiments share is declared once (engine.core.shared_knobs): every experiment's copy
equals the declaration (type, default, range, help, label, widget, every field of it) unless the experiment
says why it differs (``override=``), and a knob name that two experiments declare is a shared one. The labels
the pages use in their messages (ui.text) and figure2_runs' flags are made from the same declarations."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import defaultdict

import pytest

from engine.core import shared_knobs
from engine.core.knobs import Knob, knob_of, knobs
from engine.core.shared_knobs import NAMES, Shared, declaration, shared
from engine.experiments import EXPERIMENTS

CONFIGS = {kind: e.config_class for kind, e in EXPERIMENTS.items()}
COPIES = [(kind, item) for kind, config in CONFIGS.items() for item in knobs(config) if item.name in NAMES]


def drift(item: Knob) -> list[str]:
    """The fields of knob ``item`` that differ from its shared declaration (``override`` aside)."""
    reference = declaration(item.name)
    return [
        field.name
        for field in dataclasses.fields(Knob)
        if field.name != "override" and getattr(item, field.name) != getattr(reference, field.name)
    ]


@pytest.mark.parametrize("case", COPIES, ids=lambda case: f"{case[0]}.{case[1].name}")
def test_a_shared_knob_is_the_declaration_unless_the_experiment_says_why(case: tuple[str, Knob]) -> None:
    kind, item = case
    if item.override:
        assert drift(item), f"{kind}.{item.name} declares an override but is the shared declaration"
    else:
        assert drift(item) == [], (
            f"{kind}.{item.name} differs from engine.core.shared_knobs without override="
        )


def test_a_knob_of_two_experiments_is_a_shared_one() -> None:
    owners: dict[str, list[str]] = defaultdict(list)
    for kind, config in CONFIGS.items():
        for item in knobs(config):
            owners[item.name].append(kind)
    assert {name: kinds for name, kinds in owners.items() if len(kinds) > 1 and name not in NAMES} == {}


def test_the_knobs_every_experiment_shares_agree_in_range_and_help() -> None:
    """The drift the issue found (seed ≤ 2**63−1 vs ≤ 2**32−1, snapshot_every ≤ 1e6 vs 1e7, a device help
    naming mps that its options lacked) cannot come back."""
    for name in ("data_dir", "encoder", "device", "seed", "snapshot_every"):
        copies = {kind: knob_of(config, name) for kind, config in CONFIGS.items()}
        # in range and help: whether a page composes the widget itself is the page's (the probe's encoder)
        same = {dataclasses.replace(item, override="", composed=None) for item in copies.values()}
        assert len(same) == 1, name
    device = declaration("device")
    assert all(option in device.help for option in device.options)


def test_a_change_without_a_reason_is_refused() -> None:
    with pytest.raises(TypeError, match="say why with override="):
        shared("seed", help="another text")
    with pytest.raises(TypeError, match="say why"):
        shared("steps", 5)
    field = shared("steps", 5, override="a test")
    assert field.default == 5 and field.metadata["knob"]["override"] == "a test"


def test_the_shared_declarations_are_knobs_and_import_no_numeric_library() -> None:
    assert [item.name for item in knobs(Shared)] == list(NAMES)
    assert declaration("precision").choices == shared_knobs.PRECISIONS
    code = "import sys, engine.core.shared_knobs, engine.probe.config; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"  # the probe's config stays light


def test_the_pages_labels_come_from_the_declarations() -> None:
    """ui.text names a field in a message by its declared label, short (the first declaration of a name)."""
    from ui.text import labels, short_label

    declared: dict[str, str] = {}
    for config in CONFIGS.values():
        for item in knobs(config):
            if item.label:
                declared.setdefault(item.name, short_label(item.label))
                if item.what:
                    declared.setdefault(item.what, short_label(item.label))
    assert labels() == declared
    assert declared["snapshot_every"] == "UMAP frame every k steps" and declared["data_dir"] == "Data folder"
