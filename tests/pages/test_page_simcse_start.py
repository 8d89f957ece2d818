"""The SimCSE page with runs from the [CLS] start (engine.encoders.starts): a finished run and a stopped one
render cleanly in the page and in projector mode, and the lesson above them prints the figures of the
version of the Figure-2 preset whose runs are shown (the lecture version's beside a lecture run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract import make_run
from test_page_contract import assert_clean, charts_drawn, opened

from engine.core import paths
from engine.lessons import presets
from ui import projector

PAGE = "views/simcse.py"


@pytest.fixture(scope="module")
def from_start(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished and a stopped smoke run of SimCSE from ``minilm-cls``, made by the engine."""
    root = tmp_path_factory.mktemp("cls-start-runs")
    return {
        end: make_run("simcse", root / f"cls-{end}", Path("minilm-cls"), end)  # the start, by its name
        for end in ("finished", "stopped")
    }


def _copied(folder: Path, name: str | None = None) -> str:
    import shutil

    target = paths.runs_dir() / (name or folder.name)
    shutil.copytree(folder, target)
    return target.name


@pytest.mark.parametrize("state", [{}, {projector.KEY: True}])
def test_runs_from_the_cls_start_render_in_the_page_and_the_projector(
    from_start: dict[str, Path], state: dict, fresh_registry
) -> None:
    shown = [_copied(folder) for folder in from_start.values()]
    at = opened(PAGE, shown, **state)
    assert_clean(at)
    assert charts_drawn(at) > 0
    config = json.loads((paths.runs_dir() / shown[0] / "config.json").read_text())
    summary = json.loads((paths.runs_dir() / shown[0] / "summary.json").read_text())
    assert config["encoder"] == "minilm-cls" and summary["pooler_resolved"] == "cls"


def test_the_lesson_beside_a_lecture_run_prints_its_own_figures_not_the_recorded_ones(
    from_start: dict[str, Path], fresh_registry
) -> None:
    """A run whose config is the lecture version's (its fields written into a real run's config.json: the
    page reads the folder) is told by its own figures and what one seed of its steps can separate, never by
    the lessons check's recorded figures (issue 58); a run of no preset likewise."""
    lecture = presets.presets()["SimCSE Figure 2 · lecture"]
    name = _copied(from_start["finished"], "lecture-run")
    config_file = paths.runs_dir() / name / "config.json"
    config = json.loads(config_file.read_text())
    config.update(lecture.fields("unsup-simcse"))
    config_file.write_text(json.dumps(config))
    plain = _copied(from_start["finished"], "plain-run")

    def intro(shown: list[str]) -> str:
        at = opened(PAGE, shown)
        assert_clean(at)
        return " ".join(block.value for block in at.markdown)

    seen = intro([name])
    assert "On screen: unsup-simcse: STS Spearman" in seen and "10 steps of one seed can show" in seen
    for text in (seen, intro([plain])):
        assert "Figures measured by the lessons check" not in text and "short preset" not in text
