"""UI presets: every preset builds valid configs of its experiment."""

from __future__ import annotations

from engine.experiments import EXPERIMENTS
from engine.lessons import presets
from engine.lessons.numbers import LECTURE_SUFFIX


def test_every_preset_makes_valid_configs() -> None:
    found = presets.presets()
    assert {"SimCSE Figure 2", "Isotropy paper, setup (i)"} <= set(found)
    for preset in found.values():
        for name, fields in preset.configs({"seed": 3, "device": "cpu"}):
            config = EXPERIMENTS[preset.kind].make_config(**fields)
            assert config.seed == 3, name


def test_every_run_of_every_preset_and_of_its_short_version_is_a_valid_config() -> None:
    """queue(): each run with its own kind; a run of another kind keeps only its config's fields (the JEPA
    page's settings hold JEPA knobs that SimCSE has not), and the short version lays its fields on top."""
    jepa_page = {"seed": 3, "device": "cpu", "ema": 0.5, "predictor": False, "view": "span-mask"}
    for preset in presets.presets().values():
        for short in (False, True):
            settings = jepa_page if preset.kind == "jepa" else {"seed": 3}
            for run in presets.queue(preset, settings, short=short):
                config = EXPERIMENTS[run.kind].make_config(**run.fields)
                assert config.seed == 3, (preset.name, run.name)
                if short and preset.short:
                    assert config.steps == preset.short["steps"], (preset.name, run.name)


def test_the_jepa_collapse_preset_holds_its_simcse_reference_beside_the_three_jepa_runs() -> None:
    collapse = presets.presets()["Does JEPA collapse?"]
    queued = presets.queue(collapse, {"ema": 0.5, "seed": 1})
    assert [run.kind for run in queued] == ["jepa", "jepa", "jepa", "simcse"]
    reference = queued[-1].fields
    assert reference["mode"] == "unsup" and reference["seed"] == 1 and "ema" not in reference
    assert {key: reference[key] for key in ("steps", "lr", "batch_size", "train")} == {
        key: queued[0].fields[key] for key in ("steps", "lr", "batch_size", "train")
    }
    # the page's own configs (and so its sidebar) are the JEPA runs; the preset is offered on the JEPA page
    assert len(collapse.configs()) == 3 and "Does JEPA collapse?" in presets.for_kind("jepa")


def test_figure2_queues_the_four_runs_and_setup_i_is_the_paper_setup() -> None:
    figure2 = presets.presets()["SimCSE Figure 2"].configs({"steps": 5})
    # the same-mask run (half the work) last: runs side by side end close together
    assert [name for name, _ in figure2] == ["unsup-simcse", "no-dropout", "delete-one-word", "fixed-0.1"]
    assert figure2[1][1]["dropout"] == 0.0 and figure2[3][1]["same_mask"] is True
    assert figure2[2][1]["augment"] == "delete-one-word"
    # from the [CLS] start (engine.encoders.starts) at the preset's own length and step size
    assert all(fields["eval_every"] == 10 and fields["steps"] == 100 for _, fields in figure2)
    assert all(fields["encoder"] == "minilm-cls" and fields["pooler"] == "native" for _, fields in figure2)
    trained = presets.presets()["SimCSE on a trained encoder"].configs({"steps": 5, "encoder": "mine"})
    assert [name for name, _ in trained] == [name for name, _ in figure2]
    assert all(fields["steps"] == 5 and fields["encoder"] is None for _, fields in trained)
    ((_, setup),) = presets.presets()["Isotropy paper, setup (i)"].configs({"limit": 50})
    assert (setup["data"], setup["steps"], setup["metric_every"], setup["limit"]) == (
        "rt-polarity",
        1000,
        1,
        None,
    )
    assert set(presets.for_kind("simcse")) == {
        "SimCSE Figure 2",
        "SimCSE Figure 2 · lecture",
        "SimCSE on a trained encoder",
    }


def test_default_data_dir_is_the_setting_then_the_app_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(tmp_path / "chosen"))
    assert presets.default_data_dir() == str(tmp_path / "chosen")
    monkeypatch.delenv("EMBEDLAB_DATA_DIR")
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", str(tmp_path))
    assert presets.default_data_dir() == str(tmp_path)
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")
    assert presets.default_data_dir() is None
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", str(tmp_path / "absent"))
    assert presets.default_data_dir() is None


def test_figure2_never_claims_sts_b_without_a_data_folder_and_runs_the_papers_settings(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")
    without = presets.presets({"data_dir": None})["SimCSE Figure 2"].description
    assert "demo pairs" in without and "STS-B dev" not in without
    assert "demo pairs" in presets.presets()["SimCSE Figure 2"].description
    (tmp_path / "stsb").mkdir()
    assert presets.presets({"data_dir": str(tmp_path)})["SimCSE Figure 2"].description.endswith(
        "on STS-B dev."
    )
    sidebar = {"dropout": 0.0, "same_mask": True, "augment": "crop", "save_encoder": "mine"}
    runs = dict(presets.presets()["SimCSE Figure 2"].configs(sidebar))
    assert runs["unsup-simcse"]["dropout"] == 0.1 and runs["no-dropout"]["dropout"] == 0.0
    assert [runs[name]["same_mask"] for name in runs] == [False, False, False, True]
    assert (
        runs["unsup-simcse"]["augment"] == "none" and runs["delete-one-word"]["augment"] == "delete-one-word"
    )
    assert all(fields["save_encoder"] is None for fields in runs.values())


def test_setups_iii_and_iv_are_the_word_level_multi_label_probes() -> None:
    found = presets.presets()
    for name, data in (
        ("Isotropy paper, setup (iii)", "wordnet-pos"),
        ("Isotropy paper, setup (iv)", "wordnet-supersenses"),
    ):
        preset = found[name]
        assert preset.kind == "probe" and name in presets.for_kind("probe")
        sidebar = {"limit": 50, "sample_size": 100, "vectors": "mine.txt", "objective": "triplet", "seed": 1}
        ((_, fields),) = preset.configs(sidebar)
        config = EXPERIMENTS["probe"].make_config(**fields)
        assert (config.data, config.limit, config.sample_size, config.vectors) == (data, None, None, None)
        assert (config.objective, config.steps, config.lr, config.metric_every) == (
            "classifier",
            1000,
            1e-3,
            1,
        )
        assert "multi-label" in preset.description and "input embedding table" in preset.description


def test_a_lecture_version_queues_exactly_the_runs_the_short_check_judges() -> None:
    """``<name> · lecture`` is the short version that ``lessons check --short`` runs (so the lesson's claims
    are checked on it): the same kinds, run keys and config fields, for any user settings."""
    found = presets.presets()
    lectures = [preset for preset in found.values() if preset.lecture]
    assert {preset.name for preset in lectures} >= {"Does JEPA collapse?", "SimCSE Figure 2"}
    for preset in lectures:
        lecture = found[preset.name + LECTURE_SUFFIX]
        assert lecture.kind == preset.kind and not lecture.lecture and not lecture.demo
        settings = {"seed": 2, "device": "cpu"}
        assert presets.queue(lecture, settings) == presets.queue(preset, settings, short=True)
        assert lecture.description.startswith(f"The lecture version of '{preset.name}'")


def test_a_lecture_version_says_how_long_it_took_when_measured(tmp_path, monkeypatch) -> None:
    times = tmp_path / "lecture_times.json"
    monkeypatch.setattr(presets, "LECTURE_TIMES", times)
    collapse = presets.presets()["Does JEPA collapse?"]
    assert "not measured yet" in presets.lecture_version(collapse).description
    times.write_text(
        '{"Does JEPA collapse?": {"seconds": 41.6, "machine": "2-core CPU", "date": "2026-11-27"}}'
    )
    assert "about 42 s on a 2-core CPU (2026-11-27)" in presets.lecture_version(collapse).description
