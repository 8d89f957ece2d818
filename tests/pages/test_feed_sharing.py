"""Open tabs share the live feed's work (issue 24, item 8): sessions that show the same view (same runs, same
choices) get one build per due time, written to each of their files, and no build at all while what the
payload depends on (:func:`ui.live_state.stamp`) is unchanged. Counts, never times."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ui import feed, live_state


def payload(step: int, live: bool = True) -> dict:
    return {
        "description": {"panels": [{"key": "loss", "series": [{"x": [0, step], "y": [1.0, 0.5]}]}]},
        "signature": "s",
        "live": live,
    }


class Counting:
    """A build that counts its calls and shows the step it is given by ``state``."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.calls = 0

    def __call__(self) -> dict:
        self.calls += 1
        return payload(self.state["step"], live=self.state.get("live", True))


def read(root: Path, token: str) -> dict:
    return feed.read_fed(root / f"{token}.json")


def test_ten_sessions_of_one_view_get_one_build_per_tick_and_none_while_nothing_changed(
    tmp_path: Path,
) -> None:
    state = {"step": 1}
    feeder = feed.Feeder(tmp_path)
    builds = [Counting(state) for _ in range(10)]  # each page run hands its own build over
    tokens = [
        feeder.follow(
            f"tab{i}",
            builds[i],
            payload(0),
            seconds=1.0,
            now=100.0 + i / 20,  # tabs opened at different moments: due at different moments
            view=("run-a", "loss"),
            stamp=lambda: state["step"],
        )
        for i in range(10)
    ]
    for tick in range(1, 12):
        feeder.tick(now=100.0 + tick / 10)
    assert sum(build.calls for build in builds) == 1 and feeder.builds == 1
    assert {read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"][1] for token in tokens} == {1}
    for second in range(2, 6):  # nothing new: no build
        for tick in range(10):
            feeder.tick(now=100.0 + second + tick / 10)
    assert feeder.builds == 1
    state["step"] = 2  # a new row: one build, every tab gets it
    for tick in range(10):
        feeder.tick(now=106.0 + tick / 10)
    assert feeder.builds == 2
    assert {read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"][1] for token in tokens} == {2}


def test_different_views_and_unkeyed_sessions_are_built_apart(tmp_path: Path) -> None:
    state = {"step": 3}
    feeder = feed.Feeder(tmp_path)
    for i, view in enumerate([("a",), ("a",), ("b",), None, None]):
        feeder.follow(
            f"tab{i}",
            Counting(state),
            payload(0),
            seconds=1.0,
            now=0.0,
            view=view,
            stamp=lambda: state["step"],
        )
    feeder.tick(now=1.0)
    assert feeder.builds == 4  # view a once, view b once, each unkeyed session for itself
    feeder.tick(now=2.0)
    assert feeder.builds == 6  # the keyed views' stamp is unchanged; the unkeyed sessions build as before


def test_a_shared_view_ends_its_sessions_feeds_after_the_last_live_payload(tmp_path: Path) -> None:
    state = {"step": 1, "live": False}
    feeder = feed.Feeder(tmp_path)
    for i in range(3):
        feeder.follow(f"tab{i}", Counting(state), payload(0), seconds=1.0, now=0.0, view="v", stamp=lambda: 1)
    feeder.tick(now=1.0)
    state["step"] = 9
    for second in range(2, 6):
        feeder.tick(now=float(second))
    assert feeder.builds == 1  # the runs ended: the last payload is written, nothing more is built


def test_a_closed_tab_drops_its_views_build(tmp_path: Path) -> None:
    feeder = feed.Feeder(tmp_path, lease=30.0)
    feeder.follow("tab", Counting({"step": 1}), payload(0), seconds=1.0, now=0.0, view="v", stamp=lambda: 1)
    feeder.tick(now=1.0)
    assert feeder._built
    feeder.tick(now=40.0)  # not renewed: dropped, and the view's build with it
    assert feeder.following() == [] and not feeder._built


def page_run_choices(**changes: Any) -> live_state.Choices:
    fields = {
        "ids": ("run-a",),
        "metrics": ("loss", "isoscore"),
        "measures": ("loss",),
        "options": {"smoothing": 0.0, "log_y": False, "x": "step"},
        "pair": ("isoscore", "loss"),
        "share": False,
        "figures": ("align_uniform",),
    }
    return live_state.Choices(**(fields | changes))


def test_two_page_runs_with_the_same_choices_have_one_view_key() -> None:
    first, second = page_run_choices(), page_run_choices()
    assert first is not second
    assert live_state.view_key(first) == live_state.view_key(second) is not None
    assert live_state.view_key(first) != live_state.view_key(page_run_choices(ids=("run-b",)))
    assert live_state.view_key(first) != live_state.view_key(
        page_run_choices(options={"smoothing": 0.5, "log_y": False, "x": "step"})
    )
    assert live_state.view_key(first) != live_state.view_key(page_run_choices(figures=()))  # other figures
    assert live_state.view_key(page_run_choices(options={"x": ["step"]})) is None  # unkeyable: not shared


def test_the_stamp_follows_the_runs_files_and_states(tmp_path: Path) -> None:
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    job = SimpleNamespace(
        state="running", phase="training", setup_progress=1.0, total_steps=10, summary=None, run_dir=run_dir
    )
    job.active = True
    reg = SimpleNamespace(get=lambda run_id: job if run_id == "run-a" else None, projecting=lambda job: False)
    choices = page_run_choices(ids=("run-a", "gone"))
    first = live_state.stamp(reg, choices)
    assert live_state.stamp(reg, choices) == first
    (run_dir / "metrics.csv").write_text("step,loss\n0,1.0\n")
    grown = live_state.stamp(reg, choices)
    assert grown != first
    with (run_dir / "metrics.csv").open("a") as handle:
        handle.write("1,0.5\n")
    assert live_state.stamp(reg, choices) != grown
    grown = live_state.stamp(reg, choices)
    job.state = "finished"
    assert live_state.stamp(reg, choices) != grown


def test_a_renewal_takes_the_views_last_build_while_nothing_changed(tmp_path: Path) -> None:
    state = {"step": 1}
    feeder = feed.Feeder(tmp_path)
    build = Counting(state)
    feeder.follow("tab0", build, payload(0), seconds=1.0, now=0.0, view="v", stamp=lambda: state["step"])
    feeder.tick(now=1.0)
    renewals = [feeder.shared("v", lambda: state["step"], build)[0] for _ in range(10)]  # ten tabs renew
    assert build.calls == 1 and all(found == payload(1) for found in renewals)
    state["step"] = 2
    assert feeder.shared("v", lambda: state["step"], build)[0] == payload(2) and build.calls == 2
    assert feeder.shared(None, None, build)[0] == payload(2) and build.calls == 3  # no view: built for it
