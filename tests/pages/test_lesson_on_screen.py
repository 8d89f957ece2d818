"""The SimCSE page's About text is the runs on screen (issue 58): beside a finished run every number it
prints is one of that run's own (config, summary, its metrics' first and last rows); beside three seeds of
one shipped Figure 2 run, their means over the seeds; never the lessons check's recorded figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from apphelpers import APP
from contract import make_run
from streamlit.testing.v1 import AppTest
from text_numbers import SHIPPED, numbers_in, run_values

from engine.core import paths

PAGE = "views/simcse.py"
RECORDED = "Figures measured by the lessons check"


def about_text(shown: list[str]) -> str:
    """The simcse page with the runs ``shown`` picked: its About popover's text (the whole introduction)."""
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    at.switch_page(PAGE)
    at.session_state["simcse.shown"] = shown
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (text,) = [str(m.value) for m in at.main.markdown if "On screen:" in str(m.value)]
    return text


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, tiny_dir: Path) -> Path:
    return make_run("simcse", tmp_path_factory.mktemp("on-screen") / "simcse-finished", tiny_dir)


def test_beside_a_finished_run_every_number_is_the_runs_own(fresh_registry, finished: Path) -> None:
    folder = paths.runs_dir() / finished.name
    shutil.copytree(finished, folder)
    text = about_text([folder.name])
    printed = numbers_in(text)
    assert printed, text  # its start → end figures at least
    assert [n for n in printed if n not in run_values([[folder]])] == [], text
    assert RECORDED not in text


def test_beside_three_seeds_of_a_shipped_run_the_numbers_are_their_means(fresh_registry) -> None:
    if not SHIPPED.is_dir():
        pytest.skip("the shipped Figure 2 run folders are absent")
    names = ["unsup-simcse", "unsup-simcse-seed-1", "unsup-simcse-seed-2"]
    for name in names:
        shutil.copytree(SHIPPED / name, paths.runs_dir() / name)
    text = about_text(names)
    assert "means ± sd over seeds 0, 1, 2" in text and RECORDED not in text
    assert [n for n in numbers_in(text) if n not in run_values([[paths.runs_dir() / n for n in names]])] == []
    assert "STS Spearman 0.775 → 0.826 ± 0.00252" in text  # the three seeds' mean and sd (docs/results.md)
