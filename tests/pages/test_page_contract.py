"""The page contract: every registered experiment's page (and Compare) renders every kind of run it can show,
with no exception and no error element but a failed run's own line.

The experiments come from :data:`engine.experiments.EXPERIMENTS` (an experiment added later is covered
with no edit here); the runs are made for real by the engine from each experiment's ``smoke`` settings
(:mod:`contract`), once per module, and copied into each test's cache. States: no run; one finished run; a
live run (rows still being written, its writer alive); a stopped run; a failed run; two runs of its kind; a
group of 2 seeds; projector mode on (with a finished run).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelpers import APP, charts_drawn, errors
from contract import FAILURE, copy_runs, live_run, make_group, make_run
from streamlit.testing.v1 import AppTest

from engine.core import paths
from engine.experiments import EXPERIMENTS
from ui import projector

KINDS = [kind for kind, experiment in EXPERIMENTS.items() if experiment.section is not None]
STATES = ["no run", "finished", "live", "stopped", "failed", "two runs", "group of 2 seeds", "projector"]


def make_all(kind: str, root: Path, encoder: Path) -> dict[str, Path]:
    """``kind``'s runs for the states: two finished runs, a stopped one, a failed one and a group of 2 seeds,
    keyed ``"<kind> <state>"``."""
    found: dict[str, Path] = {}
    for seed, (name, end) in enumerate(
        (("finished", "finished"), ("second", "finished"), ("stopped", "stopped"))
    ):
        found[f"{kind} {name}"] = make_run(kind, root / f"{kind}-{name}", encoder, end, seed=seed)
    found[f"{kind} failed"] = make_run(kind, root / f"{kind}-failed", encoder, "failed")
    found[f"{kind} group"] = make_group(kind, root / f"{kind}-group", encoder)
    return found


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, tiny_dir: Path) -> dict[str, Path]:
    """Every registered experiment's runs (:func:`make_all`), made once for the module."""
    root = tmp_path_factory.mktemp("contract-runs")
    return {key: path for kind in KINDS for key, path in make_all(kind, root, tiny_dir).items()}


def page_of(kind: str) -> str:
    return EXPERIMENTS[kind].section.page


def opened(page: str, shown: list[str] | None = None, **state: object) -> AppTest:
    """``page`` rendered on a fresh server (the app, then the page), with ``shown`` run ids picked (default:
    the page's own choice) and session ``state`` set."""
    at = AppTest.from_file(str(APP), default_timeout=180)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(page)
    if shown is not None:
        kind = next((k for k, e in EXPERIMENTS.items() if e.section and e.section.page == page), "all")
        at.session_state[f"{kind}.shown"] = shown
    return at.run()


def assert_clean(at: AppTest, *, failed: int = 0) -> None:
    """No exception; the only error elements are the failed runs' own lines (``failed`` of them)."""
    assert not at.exception, [e.value for e in at.exception]
    found = errors(at)
    assert len(found) == failed and all(FAILURE in line for line in found), found


#: the made runs each state shows (the others: "no run", "live" and the group are set up in the test)
SHOWN = {
    "finished": ["finished"],
    "stopped": ["stopped"],
    "failed": ["failed"],
    "two runs": ["finished", "second"],
    "projector": ["finished"],
}


def check_state(kind: str, state: str, made: dict[str, Path], encoder: Path) -> None:
    """``kind``'s page in ``state`` renders cleanly (the contract), with ``made``'s runs copied into the
    test's cache."""
    runs_dir, page = paths.runs_dir(), page_of(kind)
    if state == "no run":
        at = opened(page)
        assert_clean(at)
        assert EXPERIMENTS[kind].section.empty in [info.value for info in at.info]
        return
    if state == "live":
        with live_run(kind, runs_dir / f"{kind}-live", encoder):
            at = opened(page)
            assert_clean(at)
            assert at.get("bidi_component"), "a live run is drawn by the live view"
            assert charts_drawn(at) > 0
        return
    if state == "group of 2 seeds":
        copy_runs(made, paths.groups_dir(), f"{kind} group")
        copy_runs(made, runs_dir, f"{kind} finished")
        at = opened(page)
        assert_clean(at)
        assert charts_drawn(at) > 0
        return
    names = [f"{kind} {name}" for name in SHOWN[state]]
    copy_runs(made, runs_dir, *names)
    at = opened(
        page, [made[name].name for name in names], **({projector.KEY: True} if state == "projector" else {})
    )
    assert_clean(at, failed=1 if state == "failed" else 0)
    assert charts_drawn(at) > 0, f"{kind} {state}: nothing drawn"


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("kind", KINDS)
def test_experiment_page_renders(
    kind: str, state: str, made: dict[str, Path], tiny_dir: Path, fresh_registry
) -> None:
    check_state(kind, state, made, tiny_dir)


BESIDE = [(kind, other) for kind in KINDS for other in EXPERIMENTS[kind].section.beside]


@pytest.mark.parametrize(("kind", "other"), BESIDE)
def test_experiment_page_renders_beside_another_experiments_runs(
    kind: str, other: str, made: dict[str, Path], tiny_dir: Path, fresh_registry
) -> None:
    """A page whose section shows another experiment's runs beside its own (JEPA: its preset's SimCSE
    reference), with one of each, finished, and in projector mode."""
    names = [f"{kind} finished", f"{other} finished"]
    copy_runs(made, paths.runs_dir(), *names)
    for state in ({}, {projector.KEY: True}):
        at = opened(page_of(kind), [made[name].name for name in names], **state)
        assert_clean(at)
        picked = at.multiselect(key=f"{kind}.shown").value
        assert picked == [made[name].name for name in names], picked
        assert charts_drawn(at) > 0
