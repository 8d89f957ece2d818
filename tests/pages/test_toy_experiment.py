"""The proof that an experiment is one package and one registration: a toy experiment (``tests/toy/``: a
config of two knobs, a generator of the loss and a measure of its own, its entry declared with the
``declare()`` call a real one makes, and a page script of one call), registered here with the registry's own
:func:`engine.experiments.register` (no monkeypatch), is drawn by the app's navigation, passes the page
contract in every state, and runs from the CLI, with no other file edited."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_page_contract import STATES, check_state, make_all

from engine import experiments

#: every file the toy needed (the test reports it: nothing outside them was edited for it)
TOY_FILES = ("tests/toy/__init__.py", "tests/toy/entry.py", "tests/toy/page.py")


@pytest.fixture
def toy():
    """The toy registered as an experiment, as the registry registers a real one, for one test."""
    from tests.toy.entry import EXPERIMENT

    with experiments.registered(EXPERIMENT):
        yield EXPERIMENT


def test_the_toy_is_files_of_its_own() -> None:
    root = Path(__file__).resolve().parents[2]
    assert all((root / name).is_file() for name in TOY_FILES)
    assert sorted(p.relative_to(root).as_posix() for p in (root / "tests/toy").glob("*.py")) == sorted(
        TOY_FILES
    )


@pytest.mark.parametrize("state", STATES)
def test_the_toy_page_keeps_the_contract(
    state: str, toy, tmp_path: Path, tiny_dir: Path, fresh_registry
) -> None:
    made = make_all("toy", tmp_path / "made", tiny_dir)
    check_state("toy", state, made, tiny_dir)


def test_the_toy_is_in_the_navigation_and_the_cli(toy, tmp_path: Path, capsys) -> None:
    from engine.cli import main
    from ui.navigation import page_list

    assert ("tests/toy/page.py", "Toy experiment", ":material/science:") in page_list()
    assert main(["toy", "--steps", "3", "--lr", "0.25", "--out", str(tmp_path / "toy-run")]) == 0
    rows = pd.read_csv(tmp_path / "toy-run" / "metrics.csv")
    assert rows["step"].tolist() == [0, 1, 2, 3]
    assert rows["loss"].tolist() == pytest.approx([1.0, 0.25, 0.0625, 0.015625])  # x ← x/2: x² ← x²/4
    assert rows["toy_distance"].tolist() == pytest.approx([1.0, 0.5, 0.25, 0.125])  # its own measure, |x|
    assert main(["toy", "--steps", "0", "--out", str(tmp_path / "bad")]) == 2  # the knob's range, one line
    assert "steps" in capsys.readouterr().err.lower()


def test_the_toys_measure_is_registered_with_it_only() -> None:
    from engine.core.measures import MEASURES
    from tests.toy.entry import DISTANCE, EXPERIMENT

    assert DISTANCE.name not in MEASURES and "toy" not in experiments.EXPERIMENTS
    with experiments.registered(EXPERIMENT):
        assert MEASURES[DISTANCE.name] is DISTANCE and DISTANCE.name in EXPERIMENT.measures()
        assert experiments.logging(DISTANCE.name) == ["toy"]
    assert DISTANCE.name not in MEASURES and "toy" not in experiments.EXPERIMENTS
