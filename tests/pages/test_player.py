"""The page's one player (ui.player) in the live view's look (ui.live_state): a paced run's rows are cut at
the played step, which moves at the lecture pace on a clock the test sets (no wall-clock asserts), whatever
the training's own state; its progress line is the step counter; it stays "changing" until played through.
The playhead holds the first row until the live view's ``drawn`` trigger says a browser drew it (AppTest:
the trigger's callback starts it), or, with no browser, until its wait is over. An unpaced run, or one
attached from disk, is shown whole."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.core.pace import CUE_WAIT_SECONDS, LEAD_SECONDS
from engine.jobs import Job
from engine.probe.config import ProbeConfig
from engine.runlog.states import RunState
from ui import lens, live_state, player
from ui.run_facts import changing


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    now = SimpleNamespace(value=100.0)
    monkeypatch.setattr(player, "time", SimpleNamespace(monotonic=lambda: now.value))
    monkeypatch.setattr(player, "_heads", {})
    return now


def finished_run(tmp_path: Path, name: str, *, paced: bool, steps: int = 100) -> Job:
    """A run of this server that trained at full speed: all its rows are on disk, it is finished."""
    run_dir = tmp_path / name
    run_dir.mkdir()
    rows = "\n".join(f"{step},{1.0 / (step + 1)},0.5" for step in range(steps + 1))
    (run_dir / "metrics.csv").write_text(f"step,loss,isoscore\n{rows}\n")
    config = ProbeConfig(data="demo", steps=steps, lecture_pace=paced, snapshot_every=0)
    return Job("probe", config, run_dir, name, state=RunState.FINISHED)


def registry_of(*found: Job) -> SimpleNamespace:
    by_id = {job.id: job for job in found}
    return SimpleNamespace(get=by_id.get, projecting=lambda job: False)


def choices(*found: Job) -> live_state.Choices:
    return live_state.Choices(
        ids=tuple(job.id for job in found),
        metrics=("loss", "isoscore"),
        measures=("loss", "isoscore"),
        options={},
        pair=None,
        share=False,
    )


def test_a_paced_run_trained_at_full_speed_is_played_at_the_lecture_pace(tmp_path, clock) -> None:
    job = finished_run(tmp_path, "demo", paced=True)  # 100 steps over 25 s: 4 steps a second
    reg, picked = registry_of(job), choices(job)
    assert changing(job, reg)  # finished, not yet played: the live view goes on
    first = live_state.look_at(reg, picked)
    assert first.runs["demo"]["step"].max() == 0 and first.changing
    assert first.bars == [(0.0, "demo — step 0/100 · lecture pace")]
    clock.value += CUE_WAIT_SECONDS + 5.0
    later = live_state.look_at(reg, picked)
    assert later.runs["demo"]["step"].max() == 20
    assert later.bars[0] == (0.2, "demo — step 20/100 · lecture pace")
    clock.value += 25.0
    done = live_state.look_at(reg, picked)
    assert done.runs["demo"]["step"].max() == 100 and not done.changing and not changing(job, reg)


def test_the_stamp_changes_with_the_played_step_so_the_feed_builds_again(tmp_path, clock) -> None:
    job = finished_run(tmp_path, "demo", paced=True)
    reg, picked = registry_of(job), choices(job)
    first = live_state.stamp(reg, picked)
    assert live_state.stamp(reg, picked) == first
    clock.value += CUE_WAIT_SECONDS + 1.0
    assert live_state.stamp(reg, picked) != first


def test_every_figure_of_the_look_shows_the_played_step(tmp_path, clock) -> None:
    job = finished_run(tmp_path, "demo", paced=True)
    reg, picked = registry_of(job), choices(job)
    live_state.look_at(reg, picked)
    clock.value += CUE_WAIT_SECONDS + 2.0  # step 8
    payload = live_state.payload(reg, picked)
    assert payload["live"] is True and payload["unseen"] == []  # its wait is over: no cue awaited
    assert payload["description"]["progress"][0]["text"] == "demo — step 8/100 · lecture pace"


def test_an_unpaced_run_and_a_run_attached_from_disk_are_shown_whole(tmp_path, clock) -> None:
    fast = finished_run(tmp_path, "fast", paced=False)
    attached = finished_run(tmp_path, "attached", paced=True)
    attached.from_disk = True
    reg, picked = registry_of(fast, attached), choices(fast, attached)
    look = live_state.look_at(reg, picked)
    assert look.runs["fast"]["step"].max() == 100 and look.runs["attached"]["step"].max() == 100
    assert not look.changing


def with_pictures(job: Job, every: int = 10) -> Job:
    """``job`` with a covariance spectrum and a UMAP frame every ``every`` steps (frames kept in memory)."""
    steps = range(0, (job.total_steps or 0) + 1, every)
    rows = "\n".join(f"{step},{3.0 + step},{2.0},{1.0}" for step in steps)
    (job.run_dir / "spectrum.csv").write_text(f"step,e0,e1,e2\n{rows}\n")
    for step in steps:
        job.pictures.film.add(step, np.full((4, 2), float(step)), save=False)
    return job


def test_the_spectrum_and_the_umap_frames_are_cut_at_the_played_step(tmp_path, clock) -> None:
    job = with_pictures(finished_run(tmp_path, "demo", paced=True))
    reg, picked = registry_of(job), choices(job)
    picked = live_state.Choices(**{**vars(picked), "measures": (*picked.measures, lens.SPECTRUM)})
    live_state.look_at(reg, picked)
    clock.value += CUE_WAIT_SECONDS + 5.0  # step 20 of 100
    look = live_state.look_at(reg, picked)
    assert look.played == {job.id: 20}
    spectra, _ = lens.spectra_of(job)
    assert player.played_spectra(spectra, look.played[job.id]).steps.tolist() == [0, 10, 20]
    spectrum = live_state.figures(look, picked, live=True).spectrum
    names = [trace.get("name") for trace in spectrum["data"]]
    assert "step 20" in names and "step 30" not in names and "step 100" not in names
    assert sorted(player.played_frames(job.frames(), 20)) == [0, 10, 20]
    method, step, coords = player.played_view(job, player.step_of(job))
    assert (method, step, float(coords[0, 0])) == ("umap", 20, 20.0)
    clock.value += 30.0  # played to the end: the whole run
    assert player.played_view(job, player.step_of(job))[1] == 100


def test_an_unpaced_runs_spectrum_and_frames_are_whole(tmp_path, clock) -> None:
    job = with_pictures(finished_run(tmp_path, "fast", paced=False))
    assert player.step_of(job) is None
    assert player.played_view(job, None)[1] == 100 and len(player.played_frames(job.frames(), None)) == 11


# ------------------------------------------------------------------ the view's cue, through the component

LIVE_KEY = "paced.live"


def paced_view() -> None:
    """An AppTest script: the live view of the runs in the session's ``choices``, drawn as ui.live's live
    fragment draws it (the payload's ``unseen`` runs, the player's cue as the ``drawn`` callback)."""
    import streamlit as st

    from ui import live_state, live_view, player

    now = live_state.payload(st.session_state["reg"], st.session_state["choices"])
    st.session_state["payload"] = now
    live_view.show(
        now["description"], "paced.live", taken=now["taken"], unseen=now["unseen"], on_drawn=player.cue
    )


def paced_app(job: Job) -> AppTest:
    """The script of :func:`paced_view` on ``job``, run once (the server's first look at its rows)."""
    at = AppTest.from_function(paced_view, default_timeout=60)
    at.session_state["reg"], at.session_state["choices"] = registry_of(job), choices(job)
    return at.run()


def shown(at: AppTest) -> str:
    """The step counter of the payload the script's last run drew."""
    return at.session_state["payload"]["description"]["progress"][0]["text"]


def browser_drew(at: AppTest, ids: list[str]) -> AppTest:
    """What ui/web/live.js does once it drew the first rows of ``ids``: it sets the component's ``drawn``
    trigger, and the script runs again with it. AppTest has no browser, so the trigger's value is sent with
    the next run as the frontend sends it (components v2's trigger widget of the component's element)."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    (element,) = [found for found in at.get("bidi_component") if found.key == LIVE_KEY]
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(element.proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": "drawn", "value": ids}])
    return at._run(widget_state=states)


def test_the_views_drawn_trigger_starts_the_playhead(tmp_path, clock) -> None:
    job = finished_run(tmp_path, "demo", paced=True)  # 4 steps a second
    at = paced_app(job)
    assert not at.exception
    assert at.session_state["payload"]["unseen"] == [job.id]  # the view is asked to say when it drew it
    assert json.loads(at.get("bidi_component")[0].proto.json)["unseen"] == [job.id]
    clock.value += 5.0  # a loaded browser: not drawn yet, the first row waits
    assert shown(at.run()) == "demo — step 0/100 · lecture pace"
    browser_drew(at, [job.id, "no-such-run", 7])  # a browser's value: unknown ids and non-strings passed over
    assert not at.exception and player.unseen([job.id]) == []
    clock.value += LEAD_SECONDS + 2.0  # the lead after the cue, then 2 s of play: step 8
    assert shown(at.run()) == "demo — step 8/100 · lecture pace"
    assert at.session_state["payload"]["unseen"] == []


def test_without_a_cue_the_playhead_starts_by_itself_after_its_wait(tmp_path, clock) -> None:
    job = finished_run(tmp_path, "demo", paced=True)
    at = paced_app(job)  # no browser: no cue ever comes
    clock.value += CUE_WAIT_SECONDS - 0.5
    assert shown(at.run()) == "demo — step 0/100 · lecture pace"
    assert at.session_state["payload"]["unseen"] == [job.id]
    clock.value += 0.5 + 2.0  # the wait is over, then 2 s of play
    assert shown(at.run()) == "demo — step 8/100 · lecture pace"
    assert at.session_state["payload"]["unseen"] == []
