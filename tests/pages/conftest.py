"""AppTest helpers: a fresh job registry per test, downloads captured as bytes, waiting for runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from apphelpers import APP
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest


@pytest.fixture
def fresh_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Each test gets its own cache folder and job registry (threads shut down afterwards)."""
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("EMBEDLAB_APP_DATA_DIR", "none")  # no ../shared/data: the page tests run offline
    monkeypatch.setenv("EMBEDLAB_WARM_ENCODER", "0")  # a fresh cache per test: spares skip the demo warm-up
    monkeypatch.setenv("EMBEDLAB_UI_NICE", "0")  # AppTest's main thread is pytest's: keep its priority
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    st.cache_resource.clear()
    yield
    from ui.runs import registry

    registry().shutdown(timeout=30)
    st.cache_resource.clear()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Before a failed page test is reported, end its runs and its UMAP thread. pytest formats a failure with
    ``ast.parse``, which on Python 3.11 is not safe beside another thread parsing (CPython gh-106905: "AST
    constructor recursion depth mismatch"); a background thread still at work turned one failed test into an
    INTERNALERROR that hid the failure and stopped the whole run."""
    if call.when == "call" and call.excinfo is not None and "fresh_registry" in item.fixturenames:
        from ui.runs import registry

        registry().shutdown(timeout=60)
    return (yield)


@pytest.fixture
def app(fresh_registry) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception
    return at


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Media file id -> bytes of every download button (AppTest keeps only the URL); a button whose data is
    made on click (a callable) is kept as its callable, under its deferred file id (see
    ``apphelpers.button_bytes``)."""
    captured: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id
    deferred = MediaFileManager.add_deferred

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        captured[file_id] = (
            path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        )
        return file_id

    def record_deferred(self, data_callable, *args, **kwargs):
        file_id = deferred(self, data_callable, *args, **kwargs)
        captured[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record_deferred)
    return captured
