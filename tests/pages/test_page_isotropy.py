"""Isotropy page: controls, a tiny probe run whose charts and CSV downloads appear, errors as one line."""

from __future__ import annotations

import pytest
from apphelpers import button_bytes, charts_drawn, csv_of, errors, start_without_data_folder, wait_idle
from waiting import wait_for


def small_settings(at, steps: int = 6) -> None:
    at.number_input(key="probe.steps").set_value(steps)
    at.number_input(key="probe.limit").set_value(120)
    at.number_input(key="probe.snapshot_every").set_value(2)
    at.number_input(key="probe.snapshot_limit").set_value(60)
    at.run()


def test_tiny_probe_run_shows_charts_projection_and_downloads(app, downloads) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    assert app.title[0].value == "Isotropy vs clusters"
    small_settings(app)
    app.button(key="probe.start").click().run()
    assert not app.exception and not errors(app)
    job = runs.registry().jobs()[-1]
    assert job.config.steps == 6 and job.config.limit == 120 and job.config.snapshot_every == 2
    wait_idle()
    assert job.state == "finished", job.error
    app.run()
    assert not app.exception and not errors(app)
    assert charts_drawn(app) >= 5  # 4 metrics + projection + IsoScore-silhouette scatter
    buttons = {b.label: b for b in app.get("download_button")}
    run_csv = csv_of(buttons[f"{runs.run_label(job)}.csv"], downloads)
    assert run_csv["step"].tolist() == list(range(7))
    assert {"loss", "isoscore", "silhouette", "accuracy"} <= set(run_csv.columns)
    both = csv_of(buttons["shown runs (one CSV)"], downloads)
    assert both.columns[0] == "run" and len(both) == 7
    assert job.run_dir.joinpath("metrics.csv").exists()
    assert button_bytes(buttons[f"{runs.run_label(job)}.csv"], downloads).decode().startswith("step,")


def test_a_running_run_without_snapshots_says_how_to_get_frames(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    small_settings(app, steps=100_000)
    app.number_input(key="probe.snapshot_every").set_value(0).run()
    app.button(key="probe.start").click().run()
    try:
        assert not app.exception and not errors(app)
        assert any("keeps no snapshots: set a UMAP frame interval" in info.value for info in app.info)
    finally:
        for job in runs.registry().jobs():
            job.stop()
        wait_idle()


def test_invalid_settings_show_one_error_line(app) -> None:
    start_without_data_folder(app, 60)
    app.run()
    assert not app.exception
    lines = errors(app)
    assert lines and all("\n" not in line for line in lines)
    assert any("failed" in line for line in lines)


def test_stop_button_stops_a_running_job(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    small_settings(app, steps=100_000)
    app.button(key="probe.start").click().run()
    job = runs.registry().jobs()[-1]
    wait_for(lambda: job.rows.last_step is not None, 120, "the run's first step")
    app.run()
    app.button(key="probe.stop").click().run()
    # The run's state is what Stop changes; its UMAP frames may still be back-filling afterwards (not waited
    # on: on a slow machine a long film outlasts any fixed wait).
    wait_for(lambda: not job.active, 120, "the run to end", describe=lambda: job.state)
    assert job.state == "stopped"


def test_out_of_memory_inside_a_run_is_a_failed_run_shown_and_the_app_goes_on(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CUDA out-of-memory error raised inside the training loop (after 3 rows) becomes a failed run whose
    message is shown; the rows stay on disk and the next run works. (In-process jobs, so the error can be
    injected into the real probe; a child killed by the kernel's OOM killer is tested in
    test_jobs_process.)"""
    import streamlit as st
    import torch

    import engine.probe
    from engine.runlog.events import Row
    from ui import runs

    real = engine.probe.run_probe

    def runs_out_of_memory(config, stop=None):
        for event in real(config, stop):
            yield event
            if isinstance(event, Row) and event.step == 2:
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setenv("EMBEDLAB_JOB_ISOLATION", "thread")
    monkeypatch.setattr(engine.probe, "run_probe", runs_out_of_memory)
    runs.registry().shutdown(timeout=30)  # the app fixture's registry runs jobs as processes: start anew
    st.cache_resource.clear()
    app.switch_page("views/isotropy.py").run()
    small_settings(app)
    app.button(key="probe.start").click().run()
    wait_idle()
    failed = runs.registry().jobs()[-1]
    assert failed.state == "failed" and "CUDA out of memory" in failed.error
    app.run()
    assert not app.exception
    assert any("failed" in line and "CUDA out of memory" in line for line in errors(app))
    assert failed.rows.metrics()["step"].tolist() == [0, 1, 2]  # the rows before the error are kept

    monkeypatch.setattr(engine.probe, "run_probe", real)
    app.button(key="probe.start").click().run()
    wait_idle()
    assert runs.registry().jobs()[-1].state == "finished"
    app.run()
    assert not app.exception
