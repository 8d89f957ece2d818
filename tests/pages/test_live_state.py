"""What the live view says where it draws nothing (ui/live_state.message), and the signature that makes the
page rerun (ui/live_state.signature): a run's first row changes the description, not the signature, so the
first curves appear without a page rerun."""

from __future__ import annotations

import itertools
import threading

import pandas as pd

from ui import live_state


def look(logged: list[str]) -> live_state.Look:
    frame = pd.DataFrame({"step": [0, 1], **{metric: [1.0, 0.5] for metric in logged}})
    return live_state.Look(
        jobs=[], runs={"run": frame}, logged=logged, on=lambda metric: None, bars=[], changing=True
    )


def choices(measures: tuple[str, ...] = ("loss", "isoscore"), projector: bool = False) -> live_state.Choices:
    return live_state.Choices(
        ids=(),
        metrics=("loss", "isoscore"),
        measures=measures,
        options={},
        pair=None,
        share=False,
        projector=projector,
    )


def figures(chosen: object = None) -> live_state.Figures:
    return live_state.Figures(spectrum=None, relations=[], errors=[], chosen=chosen)


def test_before_the_first_row_the_view_says_so_and_after_it_says_nothing() -> None:
    assert live_state.message(look([]), choices(), figures()) == live_state.NO_METRICS
    assert live_state.message(look(["loss", "isoscore"]), choices(), figures()) is None


def test_with_no_measure_picked_the_view_says_where_to_pick_one() -> None:
    assert live_state.message(look(["loss"]), choices(measures=()), figures()) == live_state.NO_MEASURE


def test_projector_mode_without_its_curve_says_no_metrics_yet() -> None:
    assert live_state.message(look(["loss"]), choices(projector=True), figures()) == live_state.NO_METRICS
    assert live_state.message(look(["loss"]), choices(projector=True), figures(chosen={})) is None


def test_a_runs_first_row_changes_the_description_but_not_the_signature() -> None:
    before, after = look([]), look(["loss", "isoscore"])
    assert live_state.signature(before, choices(), figures()) == live_state.signature(
        after, choices(), figures()
    )
    assert live_state.description_of(before, choices(), figures())["message"] == live_state.NO_METRICS
    assert live_state.description_of(after, choices(), figures())["message"] is None


def test_an_ended_run_keeps_its_progress_line_so_the_charts_do_not_jump() -> None:
    """The live view's progress lines sit above the charts: a line that went at a run's end moved every
    chart up by its height. Every shown run that started keeps one, saying how it ended; a run cancelled
    before its first step has none."""
    from types import SimpleNamespace

    def job(state: str, last_step: int | None, total: int = 60) -> SimpleNamespace:
        fraction = 1.0 if state == "finished" else (last_step or 0) / total
        phase = "finished" if state == "finished" else f"step {last_step}/{total}"
        return SimpleNamespace(
            state=state,
            active=state in ("queued", "running"),
            rows=SimpleNamespace(last_step=last_step, steps_per_second=lambda: None),
            name=f"{state} run",
            progress=lambda: (fraction, phase),
            eta_seconds=lambda: None,
        )

    running, finished, stopped = job("running", 10), job("finished", 60), job("stopped", 30)
    cancelled = job("stopped", None)
    bars = live_state.bars_of([running, finished, stopped, cancelled])
    assert [text.split(" — ")[1] for _, text in bars] == ["step 10/60", "finished", "stopped at step 30/60"]


def test_a_starting_run_counts_the_seconds_of_its_start() -> None:
    """Before its first set-up count (the child loads PyTorch), a run's line says what it waits for and for
    how long, and the feed's stamp changes every second so that the line is redrawn."""
    import time
    from types import SimpleNamespace

    from ui.run_facts import progress_text

    job = SimpleNamespace(
        state="running",
        active=True,
        phase="starting",
        rows=SimpleNamespace(last_step=None, steps_per_second=lambda: None),
        name="demo · 150 steps",
        started=time.time() - 12.4,
        progress=lambda: (0.0, "starting"),
        eta_seconds=lambda: None,
    )
    text = progress_text(job)[1]
    assert "starting (loading PyTorch and the encoder) · 12 s" in text, text


def test_a_look_taken_later_is_stamped_later_and_each_view_apart(monkeypatch) -> None:
    """The stamp by which the live view's component refuses an older description than the one it drew
    (ui/web/live.js ``fresh``): this server, what is shown, and the order in which the looks were taken."""
    registry = type("Registry", (), {"get": lambda self, job_id: None})()
    monkeypatch.setattr(live_state.lens, "chart_frames", lambda jobs: {})
    shown, other = choices(), choices(measures=("loss",))
    first, second = live_state.look_at(registry, shown), live_state.look_at(registry, shown)
    early, late = live_state.taken(first, shown), live_state.taken(second, shown)
    assert early[0] == late[0] == live_state.SERVER and early[1] == late[1] is not None
    assert early[2] < late[2]
    assert live_state.taken(first, other)[1] != early[1]  # another view: never compared
    payload = live_state.payload_of(second, shown, live_state.figures(second, shown, live=True))
    assert payload["taken"] == late


def test_looks_read_the_runs_in_the_order_of_their_numbers(monkeypatch) -> None:
    """A page run's look that read its rows and was then slow (the feed's thread meanwhile read newer rows
    and was numbered) must not get the higher number: the component would draw its older rows over the
    feed's newer ones (the curves went back 109 -> 103 in CI, tests/e2e/test_run_finish.py). Here the first
    look reads (row 1), then waits; the second reads (row 2) meanwhile, if it can."""
    registry = type("Registry", (), {"get": lambda self, job_id: None})()
    rows = itertools.count(1)
    first_read, release = threading.Event(), threading.Event()

    def chart_frames(jobs: list) -> dict:
        row = next(rows)
        if threading.current_thread().name == "first":
            first_read.set()
            release.wait(5)  # the slow rest of a look (its progress lines, its figures' data)
        return {"run": pd.DataFrame({"step": [row]})}

    monkeypatch.setattr(live_state.lens, "chart_frames", chart_frames)
    looks: dict[str, live_state.Look] = {}

    def take(name: str) -> None:
        looks[name] = live_state.look_at(registry, choices())

    first = threading.Thread(target=take, args=("first",), name="first")
    first.start()
    assert first_read.wait(5)
    second = threading.Thread(target=take, args=("second",), name="second")
    second.start()
    second.join(0.5)  # the second look reads now, if the first one's reading does not hold it back
    release.set()
    first.join(5)
    second.join(5)
    by_number = sorted(looks.values(), key=lambda look: look.number)
    assert [int(look.runs["run"]["step"].iloc[-1]) for look in by_number] == [1, 2]
