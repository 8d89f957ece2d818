"""The command line finds its data folder as the README says and the app does (issue 56): ``--data-dir``,
else $EMBEDLAB_DATA_DIR, else ``../shared/data`` beside the lab (the setting ``app_data_dir``), and a run
records the folder it read: ``python -m engine simcse`` with no ``--data-dir`` evaluates on the folder's
STS-B, its config.json names the folder and its summary the evaluation set and the folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli import main, with_data_folder
from engine.core import paths
from engine.simcse.config import SimCSEConfig

PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8),
    ("A dog runs in the park.", "A cat sleeps on a sofa.", 0.4),
    ("Two children are swimming.", "Kids swim in a pool.", 4.0),
    ("The stock market fell today.", "A woman slices an onion.", 0.0),
    ("A plane is taking off.", "An airplane departs.", 4.6),
    ("He reads a book.", "She is cooking dinner.", 0.8),
]


def data_folder(root: Path) -> Path:
    """A data folder holding an STS-B dev file of :data:`PAIRS` (the real file's tab-separated format)."""
    (root / "stsb").mkdir(parents=True)
    lines = [f"g\tx\t2012\t{i:04d}\t{score}\t{a}\t{b}" for i, (a, b, score) in enumerate(PAIRS)]
    (root / "stsb" / "sts-dev.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder standing for ../shared/data (the app's fallback), no $EMBEDLAB_DATA_DIR."""
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    folder = data_folder(tmp_path / "shared-data")
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", str(folder))
    return folder


def test_simcse_without_data_dir_evaluates_on_the_folders_stsb_and_records_it(beside: Path, tmp_path) -> None:
    out = tmp_path / "run"
    argv = ["simcse", "--train", "demo", "--steps", "1", "--batch-size", "4", "--eval-every", "1"]
    assert main([*argv, "--device", "cpu", "--out", str(out)]) == 0
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert config["data_dir"] == str(beside.resolve())
    assert summary["data_dir"] == str(beside.resolve())
    assert summary["train_and_eval"] == ["demo", "stsb"] and "stsb-dev" in summary["eval_set"]
    assert f"{len(PAIRS)}" in summary["eval_set"]


def test_the_folder_is_chosen_as_the_readme_says(beside: Path, tmp_path, monkeypatch) -> None:
    assert paths.command_data_dir() == str(beside.resolve())  # ../shared/data (here: the fallback)
    own = data_folder(tmp_path / "own")
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(own))
    assert paths.command_data_dir() == str(own.resolve())  # $EMBEDLAB_DATA_DIR before it
    assert paths.command_data_dir("given") == "given"  # --data-dir before both
    monkeypatch.delenv("EMBEDLAB_DATA_DIR")
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")
    assert paths.command_data_dir() is None  # none at all: the demo sets
    assert with_data_folder(SimCSEConfig()).data_dir is None


@settings(max_examples=40, deadline=None)
@given(
    st.one_of(
        st.none(), st.just(""), st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=20)
    )
)
def test_a_named_folder_is_kept_and_only_none_is_filled(given_dir: str | None) -> None:
    """Whatever a run names is its folder; only a run that names none gets the command line's."""
    config = SimCSEConfig(data_dir=given_dir)
    filled = with_data_folder(config)
    if given_dir:
        assert filled.data_dir == given_dir
    else:
        assert filled.data_dir == paths.command_data_dir()
