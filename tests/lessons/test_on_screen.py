"""The lesson beside the runs on screen (issue 58): every number its text prints is one of those runs' own
(:mod:`engine.lessons.on_screen`), on the shipped three-seed Figure 2 runs as groups and on single runs."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import pandas as pd
import pytest
from text_numbers import SHIPPED, numbers_in, run_values, strays

from engine.lessons import on_screen
from engine.lessons.numbers import _format, load


def recorded_figures() -> set[str]:
    """The recorded means of the lessons check (results.json) as the lessons print them."""
    return {
        _format(value, None)
        for found in load()["claims"].values()
        for value in found.get("figures", {}).values()
    }


@pytest.fixture(scope="module")
def shipped() -> list[on_screen.Shown]:
    if not SHIPPED.is_dir():
        pytest.skip("the shipped Figure 2 run folders are absent")
    return on_screen.group_by_seed(sorted(SHIPPED.iterdir()))


def test_the_shipped_figure2_runs_are_four_groups_of_three_seeds(shipped: list[on_screen.Shown]) -> None:
    assert sorted(len(group.folders) for group in shipped) == [3, 3, 3, 3]
    names = {
        on_screen.run_of(json.loads((g.folders[0] / "config.json").read_text()), "simcse") for g in shipped
    }
    assert names == {
        ("SimCSE Figure 2", run) for run in ("unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word")
    }


def test_a_recorded_group_is_told_by_its_means_over_the_seeds(shipped: list[on_screen.Shown]) -> None:
    text = on_screen.on_screen_text("simcse", shipped)
    assert not strays(text, [list(group.folders) for group in shipped]), text
    for group in shipped:  # each group's mean STS at its end, over its three seeds
        ends = [pd.read_csv(f / "metrics.csv")["sts_spearman"].dropna().iloc[-1] for f in group.folders]
        assert _format(statistics.fmean(ends), None) in text
    assert "means ± sd over seeds 0, 1, 2" in text
    # the order the three seeds show beyond twice their pooled sd (docs/results.md), and what they do not
    assert "unsup-simcse ends above no-dropout on STS Spearman (the paper's order): beyond twice" in text
    assert "unsup-simcse ends below no-dropout on Alignment (the paper's order): not beyond" in text


def test_the_lesson_beside_runs_keeps_its_words_and_no_recorded_figure(
    shipped: list[on_screen.Shown],
) -> None:
    lesson = on_screen.beside("simcse", shipped[:1])
    texts = [lesson.intro, *lesson.watch]
    assert "Figures measured by the lessons check" not in lesson.intro
    assert all("{" not in text and "…" not in text for text in texts)
    assert "contrastive" in lesson.intro.lower() and lesson.watch
    assert not strays(" ".join(texts), [list(shipped[0].folders)]), texts


def _as_lecture_run(source: Path, folder: Path, **switches: object) -> Path:
    """A copy of run ``source`` whose config says it is a run of the Figure 2 lecture (its metrics kept)."""
    from engine.lessons.presets import presets

    shutil.copytree(source, folder)
    lecture = presets()["SimCSE Figure 2 · lecture"]
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config.update(lecture.fields("unsup-simcse"), **switches)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def test_one_seed_of_the_lecture_says_what_it_can_and_cannot_separate(tmp_path: Path) -> None:
    if not SHIPPED.is_dir():
        pytest.skip("the shipped Figure 2 run folders are absent")
    dropout = _as_lecture_run(SHIPPED / "unsup-simcse", tmp_path / "dropout")
    same = _as_lecture_run(SHIPPED / "fixed-0.1", tmp_path / "same", same_mask=True)
    text = on_screen.on_screen_text("simcse", [on_screen.Shown((dropout,)), on_screen.Shown((same,))])
    assert not strays(text, [[dropout], [same]]), text
    assert "one seed each (seed 0)" in text
    assert (
        "10 steps of one seed can show each run's change from its start; an order between the runs it cannot"
        in text
    )
    assert re.search(
        r"unsup-simcse ends below fixed-0\.1 on Alignment \(the paper's order\): (not )?on this seed", text
    )
    for run in (dropout, same):
        end = pd.read_csv(run / "metrics.csv")["sts_spearman"].dropna().iloc[-1]
        assert f"STS Spearman 0.775 → {_format(end, None)}" in text
    assert not (set(numbers_in(text)) & recorded_figures() - run_values([[dropout], [same]]))


def test_without_figures_drops_every_placeholder_and_what_hangs_on_it() -> None:
    text = "A lifts (from {k.start} to {k.end}). B holds {k.here}; C stays. D: {k.end}; E rises."
    assert on_screen.without_figures(text) == "A lifts. C stays. E rises."
    assert on_screen.without_figures("{k.end} only.") == ""
