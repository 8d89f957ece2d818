"""The lesson and GIF download buttons of the pages (ui/downloads.py), through Streamlit's AppTest."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import streamlit as st

from tests.replay.test_replay import embedded, make_probe_run, make_simcse_run

APP = Path(__file__).resolve().parents[2] / "app.py"


@pytest.fixture
def fresh_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Its own cache folder and job registry (shut down afterwards), as the page tests have."""
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")
    monkeypatch.setenv("EMBEDLAB_WARM_ENCODER", "0")
    monkeypatch.setenv("EMBEDLAB_UI_NICE", "0")
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    st.cache_resource.clear()
    yield tmp_path / "cache"
    from ui.runs import registry

    registry().shutdown(timeout=30)
    st.cache_resource.clear()


@pytest.fixture
def deferred(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Deferred file id -> the callable a download button runs when clicked (AppTest never clicks one)."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    captured: dict[str, object] = {}
    original = MediaFileManager.add_deferred

    def record(self, data_callable, *args, **kwargs):
        file_id = original(self, data_callable, *args, **kwargs)
        captured[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return captured


def test_compare_offers_the_lesson_and_the_gif_of_the_shown_runs(fresh_app: Path, deferred: dict) -> None:
    from streamlit.testing.v1 import AppTest

    make_probe_run(fresh_app / "runs" / "cli-probe", steps=20, n=30, snapshot_every=5, frames=False)
    make_simcse_run(fresh_app / "runs" / "cli-simcse", steps=20)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/compare.py").run()
    assert not at.exception
    picker = at.multiselect(key="all.shown")
    picker.set_value(sorted(picker.options)).run()
    # the probe run from the command line kept 4 snapshots and no frame: the lesson waits for its film, made
    # here with a progress bar (count, rate, time left), then saved into the run folder
    buttons = {str(b.label): b for b in at.get("download_button")}
    assert buttons["lesson to take home (HTML)"].proto.disabled
    make = next(b for b in at.button if str(b.label).startswith("Make the UMAP film first (4 frames"))
    make.click().run()
    assert not at.exception
    assert len(list((fresh_app / "runs" / "cli-probe" / "frames").glob("step_*"))) == 4
    assert not [b for b in at.button if str(b.label).startswith("Make the UMAP film first")]
    buttons = {str(b.label): b for b in at.get("download_button")}
    lesson = buttons["lesson to take home (HTML)"]
    assert not lesson.proto.disabled
    gif = next(b for label, b in buttons.items() if label.startswith("UMAP film of cli-probe"))
    payload = embedded(deferred[lesson.proto.deferred_file_id]().decode("utf-8"))
    assert sorted(run["kind"] for run in payload["runs"]) == ["probe", "simcse"]
    assert next(run for run in payload["runs"] if run["kind"] == "probe")["film"]["steps"] == [5, 10, 15, 20]
    from PIL import Image

    with Image.open(io.BytesIO(deferred[gif.proto.deferred_file_id]())) as image:
        assert image.n_frames == 4


def test_an_experiment_page_offers_the_lesson_of_its_runs(fresh_app: Path, deferred: dict) -> None:
    from streamlit.testing.v1 import AppTest

    make_simcse_run(fresh_app / "runs" / "cli-simcse", steps=20)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/simcse.py").run()
    assert not at.exception
    labels = [str(b.label) for b in at.get("download_button")]
    assert "lesson to take home (HTML)" in labels
    assert not any(label.startswith("UMAP film of") for label in labels)  # no snapshots: no film, no GIF
    lesson = next(b for b in at.get("download_button") if str(b.label) == "lesson to take home (HTML)")
    payload = embedded(deferred[lesson.proto.deferred_file_id]().decode("utf-8"))
    assert payload["runs"][0]["kind"] == "simcse" and payload["runs"][0]["film"] is None
