"""ui/ wiring that no page shows: the first Start lowers the server's drawing threads, once."""

from __future__ import annotations

import threading

import pytest
from apphelpers import errors, wait_idle

from engine.compute import priority


def start_tiny_run(app, *, errors_shown: tuple[str, ...] = ()) -> None:
    """A two-step probe run started from its page; the page shows no error but ``errors_shown``."""
    app.switch_page("views/isotropy.py").run()
    app.number_input(key="probe.steps").set_value(2)
    app.number_input(key="probe.limit").set_value(60)
    app.run()
    app.button(key="probe.start").click().run()
    assert not app.exception and errors(app) == list(errors_shown)
    wait_idle()


def test_the_first_start_lowers_the_event_loop_and_the_script_thread_once(
    app, monkeypatch: pytest.MonkeyPatch
):
    calls: list[list[int | None]] = []
    monkeypatch.setattr(
        priority, "yield_to_training", lambda thread_ids: calls.append(list(thread_ids)) or 10
    )
    assert calls == []  # opening pages leaves them alone (start-up: JIT warm-up and the warm spare)
    start_tiny_run(app)
    start_tiny_run(app)
    assert calls == [
        [threading.main_thread().native_id, None]
    ]  # the server's event loop, then this script thread


def test_a_lecture_paced_run_leaves_the_pages_priority_alone(app, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-click demo trains 150 steps in about a second and is then only drawn, at the lecture pace: the
    server's drawing keeps its priority (under foreign load it would wait behind it)."""
    calls: list[list[int | None]] = []
    monkeypatch.setattr(
        priority, "yield_to_training", lambda thread_ids: calls.append(list(thread_ids)) or 10
    )
    app.button(key="overview.demo").click().run()  # queued in this run: the registry ends it after the test
    assert not app.exception and errors(app) == []
    assert calls == []


def test_a_bad_ui_nice_setting_is_named_on_the_page_and_a_run_fails_saying_so(
    app, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """A bad setting is one line on every page, the pages still draw (their threads keep their priority,
    logged), and a run, whose command checks every setting first (issue 47), fails with the same reason."""
    from ui import runs

    monkeypatch.setenv("EMBEDLAB_UI_NICE", "fast")
    line = "EMBEDLAB_UI_NICE must be a whole number, got 'fast'"
    start_tiny_run(
        app, errors_shown=(f"Runs will not start until this is fixed and the app restarted: {line}",)
    )
    job = runs.registry().jobs()[-1]
    assert job.state == "failed" and line in (job.error or ""), (job.state, job.error)
    assert "UI threads keep their priority: EMBEDLAB_UI_NICE must be a whole number" in caplog.text


def test_the_live_projection_panel_is_built_once_per_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    import numpy as np
    import pandas as pd
    import streamlit as st

    from engine import charts
    from ui import live

    built: list[str] = []
    real = charts.projection_figure
    monkeypatch.setattr(
        charts, "projection_figure", lambda *a, **k: built.append(k["title"]) or real(*a, **k)
    )
    monkeypatch.setattr(st, "session_state", {})
    coords, points = (
        np.arange(10.0).reshape(5, 2),
        pd.DataFrame({"label": list("aabbb"), "text": list("vwxyz")}),
    )
    run, other = types.SimpleNamespace(id="run-1"), types.SimpleNamespace(id="run-2")
    first = live.live_projection_panel(run, "umap-10", coords, points, "UMAP · step 10", "p")
    assert live.live_projection_panel(run, "umap-10", coords, points, "UMAP · step 10", "p") is first
    newer = live.live_projection_panel(run, "umap-20", coords, points, "UMAP · step 20", "p")
    switched = live.live_projection_panel(other, "umap-20", coords, points, "UMAP · step 20", "p")
    assert built == ["UMAP · step 10", "UMAP · step 20", "UMAP · step 20"]
    assert (
        first["version"] == "run-1-umap-10-0" and newer["version"] == "run-1-umap-20-0"
    )  # -0: projector off
    assert switched["version"] == "run-2-umap-20-0" and first["figure"]["data"][0]["hovertext"] == ["v", "w"]
    st.session_state["projector"] = True  # projector mode: the same frame is built anew, in large type
    large = live.live_projection_panel(other, "umap-20", coords, points, "UMAP · step 20", "p")
    assert large["version"] == "run-2-umap-20-1" and large["figure"]["layout"]["font"]["size"] >= 18


def test_a_page_hook_that_cannot_be_called_so_fails_where_the_page_registers_it() -> None:
    """``ui.experiment.PageHooks``: the sidebar takes nothing, the check takes the config; any other
    signature (the kind of mismatch that once broke the JEPA page at its first run) is a TypeError at once."""
    from ui.experiment import PageHooks

    def sidebar() -> dict:
        return {}

    def check(config: dict) -> None:
        return None

    PageHooks(sidebar, check)
    PageHooks(sidebar)
    PageHooks(lambda *anything: {}, lambda config, strict=False: None)  # optional extras are fine
    with pytest.raises(TypeError, match="sidebar hook"):
        PageHooks(lambda where: {})
    with pytest.raises(TypeError, match="check hook"):
        PageHooks(sidebar, lambda: None)
    with pytest.raises(TypeError, match="check hook"):
        PageHooks(sidebar, lambda config, where: None)
    with pytest.raises(TypeError, match="must be a function"):
        PageHooks({"not": "callable"})  # type: ignore[arg-type]
