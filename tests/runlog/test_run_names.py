"""Run names (engine.runlog.naming): made from what differs, given on the command line, kept in config.json,
renamed atomically, read leniently from any folder; and the lesson's title."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import runlog
from engine.cli import main
from engine.core.errors import ConfigError
from engine.jobs import Job, JobRegistry
from engine.lessons.presets import presets
from engine.runlog import naming


def _visible_only(text: str) -> bool:
    return all(ch == " " or not unicodedata.category(ch).startswith(("C", "Z")) for ch in text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_a_cleaned_name_is_trimmed_capped_visible_and_stable(text: str) -> None:
    try:
        cleaned = naming.clean_name(text)
    except ConfigError as err:
        assert "\n" not in str(err)
        assert not "".join(ch for ch in text if _visible_only(ch) and not ch.isspace())
        return
    assert cleaned == cleaned.strip() and 0 < len(cleaned) <= naming.MAX_NAME
    assert _visible_only(cleaned) and "  " not in cleaned
    assert naming.clean_name(cleaned) == cleaned


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        st.lists,
        max_leaves=4,
    )
)
def test_a_stored_name_of_any_json_value_reads_as_text_or_none(value) -> None:
    found = naming.read_name(value)
    assert found is None or (isinstance(found, str) and 0 < len(found) <= naming.MAX_NAME)
    config = {"kind": "probe", "data": "demo", "steps": 3, "name": value}
    name = naming.name_of(config, "x")
    assert isinstance(name, str) and name


@pytest.mark.parametrize("bad", ["", "   ", "\x00\x07\n\t", "\u200b\u200e"])
def test_an_empty_name_is_one_line_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="at least one visible character"):
        naming.clean_name(bad)


def test_a_generated_name_says_the_data_what_differs_and_the_steps() -> None:
    probe = {"data": "rt-polarity", "steps": 300, "lr": 0.01, "snapshot_every": 5, "device": "cpu"}
    assert naming.generated_name("probe", probe) == "rt-polarity · learning rate 0.01 · 300 steps"
    simcse = {"train": "wiki1m", "steps": 300, "dropout": 0.2, "same_mask": True}
    assert naming.generated_name("simcse", simcse) == "wiki1m · dropout 0.2 · same mask · 300 steps"
    jepa = {"steps": 60, "predictor": False, "stop_grad": True}
    assert naming.generated_name("jepa", jepa) == "jepa · no predictor · 60 steps"  # its kind, no data


@pytest.mark.parametrize("kind", ["simcse", "jepa"])
def test_a_default_page_run_is_named_after_its_own_experiment(kind: str) -> None:
    """The pages' default (train "auto", the silhouette on the demo topics): no other experiment's word
    ("probe demo · 100 steps" read as a probe run)."""
    from engine.experiments import EXPERIMENTS

    config = {**vars(EXPERIMENTS[kind].make_config()), "probe": "demo"}
    assert naming.generated_name(kind, config) == f"{kind} · 100 steps"
    assert len(naming.generated_name("probe", {"data": "x" * 200, "steps": 3})) <= naming.MAX_NAME


def test_a_preset_run_is_named_by_its_title_and_what_differs_inside_it() -> None:
    found = presets()
    figure2 = found["SimCSE Figure 2"]
    names = naming.preset_run_names(figure2.name, "simcse", figure2.base, figure2.runs)
    assert names["fixed-0.1"] == "SimCSE Figure 2 · same mask"
    assert names["no-dropout"] == "SimCSE Figure 2 · dropout 0"
    assert len(set(names.values())) == len(names)
    demo = next(p for p in found.values() if p.demo)
    assert list(naming.preset_run_names(demo.name, "probe", demo.base, demo.runs).values()) == [demo.name]


def _cli_run(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "run"
    code = main(["probe", "--data", "demo", "--limit", "60", "--steps", "2", "--out", str(out), *extra])
    return code, out


def test_name_on_the_command_line_is_kept_in_config_json(tmp_path: Path) -> None:
    code, out = _cli_run(tmp_path, "--name", "  My\x07 first   run ")
    assert code == 0
    config = json.loads((out / runlog.CONFIG).read_text())
    assert config["name"] == "My first run"
    assert runlog.run_name(out) == "My first run"
    info = runlog.list_runs(tmp_path)[0]
    assert info.run_name == "My first run" and Job.from_run(info).name == "My first run"
    assert "name" not in Job.from_run(info).config_dict  # the name is not a setting


def test_an_empty_name_on_the_command_line_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    code, out = _cli_run(tmp_path, "--name", " \t ")
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: a run name needs") and "\n" not in err
    assert not out.exists()  # refused before any folder is made


def test_without_a_name_the_run_is_named_from_its_settings(tmp_path: Path) -> None:
    code, out = _cli_run(tmp_path)
    assert code == 0
    assert json.loads((out / runlog.CONFIG).read_text())["name"] == "demo · limit 60 · 2 steps"


def test_rename_round_trip_rewrites_only_the_name(tmp_path: Path) -> None:
    code, out = _cli_run(tmp_path, "--name", "first")
    before = json.loads((out / runlog.CONFIG).read_text())
    files = sorted(p.name for p in out.iterdir())
    assert runlog.rename(out, "  second\nname ") == "second name"
    after = json.loads((out / runlog.CONFIG).read_text())
    assert after == {**before, "name": "second name"}
    assert sorted(p.name for p in out.iterdir()) == files  # no temporary file left, nothing lost
    with pytest.raises(ConfigError):
        runlog.rename(out, "\x00")
    assert json.loads((out / runlog.CONFIG).read_text()) == after
    with pytest.raises(ConfigError, match="cannot rename"):
        runlog.rename(tmp_path / "nowhere", "x")


def test_an_old_folder_without_a_name_reads_with_a_generated_one(tmp_path: Path) -> None:
    old = {"kind": "probe", "data": "demo", "steps": 150, "lr": 0.001}
    assert naming.name_of(old, "probe-20261101-101010-ab12") == "demo · 150 steps"
    assert naming.name_of(old, "demo-clusters-20261101-101010-ab12") == "Demo: clusters form"
    assert naming.name_of(old, "demo-clusters-20261202-101010-ab12cd34") == "Demo: clusters form"
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / runlog.CONFIG).write_text(json.dumps(old))
    assert runlog.run_name(folder) == "demo · 150 steps"
    (folder / runlog.CONFIG).write_text("{not json")
    assert runlog.run_name(folder) == "old"


def test_the_registry_names_labels_and_renames_its_runs(tmp_path: Path) -> None:
    reg = JobRegistry(tmp_path, project=False, isolation="thread", warm=False)
    try:
        config = {"data": "demo", "limit": 60, "steps": 2}
        first = reg.submit("probe", config, name="same")
        second = reg.submit("probe", config, name="same")
        third = reg.submit("probe", config)
        assert reg.wait_idle(240)
        assert (first.label, second.label, third.label) == ("same", "same (2)", "demo · limit 60 · 2 steps")
        assert json.loads((second.run_dir / runlog.CONFIG).read_text())["name"] == "same"
        assert reg.rename(second.id, "other") == "other"
        assert (first.label, second.label) == ("same", "other")
        assert runlog.run_name(second.run_dir) == "other"
        with pytest.raises(ConfigError):
            reg.rename(second.id, "  ")
        assert runlog.run_name(second.run_dir) == "other"
    finally:
        reg.shutdown()


def test_the_lesson_title_is_the_run_name(tmp_path: Path) -> None:
    code, out = _cli_run(tmp_path, "--name", "Lecture <3> run")
    lesson = tmp_path / "lesson.html"
    assert main(["replay", str(out), "--out", str(lesson)]) == 0
    html = lesson.read_text(encoding="utf-8")
    assert "<title>" in html and "Lecture &lt;3&gt; run</title>" in html


def test_a_lecture_versions_runs_are_named_after_it_not_after_the_full_preset() -> None:
    """The lecture version has the full preset's run keys: the preset button names which one it queued."""
    from engine.simcse.entry import EXPERIMENT as SIMCSE
    from ui.runs import run_names

    lecture = presets()["SimCSE Figure 2 · lecture"]
    runs = lecture.configs()
    assert all(
        str(name).startswith("SimCSE Figure 2 · lecture · ") for name in run_names(SIMCSE, runs, lecture.name)
    )
    assert not any("lecture" in str(name) for name in run_names(SIMCSE, runs, "SimCSE Figure 2"))


@given(st.text(max_size=80))
def test_a_run_folders_prefix_is_a_short_plain_name_or_the_kind(title: str) -> None:
    """engine.runlog.naming.folder_prefix: a name given to a run starts its folder's name, as a file name."""
    from engine.core import paths
    from engine.runlog.naming import folder_prefix

    prefix = folder_prefix(title, "probe")
    assert 0 < len(prefix) <= 40 and not prefix.startswith(".") and ".." not in prefix
    kept = [c for c in prefix if not (c.isalnum() or c in "._-" or unicodedata.category(c).startswith("M"))]
    assert kept == [] and prefix[-1] not in ".-_"  # letters, digits and marks of any script, "._-"
    assert prefix == "probe" or paths.safe_name(title, what="run name").startswith(prefix)
