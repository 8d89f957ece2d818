"""The experiment registry (engine/experiments.py): each experiment one package whose entry declares its
config, run, columns, presets, lesson and page section as objects; importing engine.core loads no
experiment, and what the entries say agrees with the measure registry, the pages and each other."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import is_dataclass
from pathlib import Path

import pytest

from engine import experiments
from engine.core.declaration import Experiment
from engine.core.measures import BOOKKEEPING, MEASURES
from engine.lessons import presets

REPO = Path(__file__).resolve().parents[2]
KINDS = list(experiments.EXPERIMENTS)


@pytest.mark.parametrize("kind", KINDS)
def test_every_part_of_an_entry_is_an_object(kind) -> None:
    experiment = experiments.EXPERIMENTS[kind]
    assert isinstance(experiment, Experiment) and experiment.kind == kind
    assert is_dataclass(experiment.config_class)
    parts = (
        experiment.generator,
        experiment.summarize,
        experiment.presets,
        experiment.measured_on,
        experiment.describe,
        experiment.warm_up,
        experiment.load_code,
    )
    assert all(part is None or callable(part) for part in parts)
    cli = experiment.command_line
    assert callable(cli.add_arguments) and callable(cli.config_from_args)


def test_importing_the_core_loads_no_experiment() -> None:
    """The ground floor depends on no experiment: in a fresh interpreter, ``import engine.core`` imports no
    module of an experiment or of the training core (the registry lives above them, engine/experiments.py)."""
    code = (
        "import engine.core, sys; print(sorted(m for m in sys.modules if m.startswith("
        "('engine.probe','engine.simcse','engine.jepa','engine.training'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("kind", KINDS)
def test_an_entry_agrees_with_the_measure_registry_and_its_page(kind) -> None:
    experiment = experiments.EXPERIMENTS[kind]
    assert experiment.columns[0] == "step"
    assert all(experiment.charted(c) in MEASURES or c in BOOKKEEPING for c in experiment.columns)
    assert is_dataclass(experiment.make_config())  # the defaults make a valid config
    assert set(experiment.lesson.measures) <= set(MEASURES)
    assert experiment.lesson.title and experiment.lesson.intro and experiment.lesson.watch
    section = experiment.section
    assert section.empty
    assert "experiment.experiment_page(EXPERIMENT" in (REPO / section.page).read_text(encoding="utf-8")


def test_presets_belong_to_their_experiment_and_one_is_the_demo() -> None:
    found = presets.presets()
    assert all(preset.kind in experiments.EXPERIMENTS for preset in found.values())
    assert [p.name for p in found.values() if p.demo] == [presets.demo().name]
    assert presets.demo().kind == "probe"


def test_measured_on_and_describe_go_through_the_entry_and_an_unknown_kind_is_named_as_is() -> None:
    assert experiments.measured_on("probe", {"data": "demo"}, None, "loss") is None
    assert experiments.measured_on("probe", {"data": "demo"}, None, "isoscore") == "the demo topics"
    assert experiments.measured_on("simcse", {"probe": "snli"}, None, "probe_silhouette") == "SNLI validation"
    assert experiments.measured_on("simcse", {"eval": "stsb"}, None, "sts_spearman") == "STS-B dev"
    assert experiments.measured_on("simcse", {}, None, "loss") is None
    assert (
        experiments.measured_on("other", {}) == "other"
        and experiments.measured_on("other", {}, None, "x") is None
    )
    assert experiments.describe("probe", {"data": "demo", "limit": 50}) == [("Data", "demo (limit 50)")]
    assert ("Labelled set", "demo") in experiments.describe("simcse", {"mode": "unsup", "probe": "demo"})
    assert experiments.describe("other", {}) == [] and experiments.title("other") == "other"


def test_the_probe_alignment_is_charted_as_class_alignment() -> None:
    import pandas as pd

    from engine import charts

    frame = pd.DataFrame({"step": [0], "alignment": [1.0]})
    assert list(charts.charted(frame, "probe").columns) == ["step", "class_alignment"]
    assert list(charts.charted(frame, "simcse").columns) == ["step", "alignment"]
    assert experiments.EXPERIMENTS["probe"].column_of("class_alignment") == "alignment"


@pytest.mark.parametrize("kind", list(experiments.EXPERIMENTS))
def test_a_section_names_only_known_run_figures_and_the_smoke_settings_make_a_config(kind) -> None:
    """The run figures a page section names are built by the one figure registry (a typo fails here, not at
    the page's first render), and the smoke settings (the page contract tests' runs) are a valid config."""
    from engine import charts

    experiment = experiments.EXPERIMENTS[kind]
    assert experiment.section is not None
    assert set(experiment.section.figures) <= set(charts.RUN_FIGURES), experiment.section.figures
    assert experiment.smoke, f"{kind} declares no smoke settings"
    config = experiment.make_config(**experiment.smoke)
    assert getattr(config, "steps", 1) <= 5  # a few steps: the contract tests make several runs of each


def test_require_gives_the_experiment_or_one_line_naming_the_known_kinds() -> None:
    from engine.core.errors import ConfigError

    assert experiments.require("simcse") is experiments.EXPERIMENTS["simcse"]
    with pytest.raises(ConfigError, match=r"^unknown experiment 'nope' \(known: probe, simcse, jepa"):
        experiments.require("nope")
