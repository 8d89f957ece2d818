"""The live feed (ui/feed.py): the server writes each following session's canvas payload to its file, only
when due and changed, stops after the last live payload, and drops sessions that ended; a running run's page
feeds its canvas what a rerun would paint."""

from __future__ import annotations

import json
import math
from pathlib import Path

from apphelpers import errors, wait_idle
from waiting import wait_for

from ui import feed


def payload(step: int, live: bool = True, signature: str = "s") -> dict:
    return {
        "panels": [{"key": "loss", "series": [{"x": [0, step], "y": [1.0, math.nan]}]}],
        "progress": [],
        "signature": signature,
        "live": live,
    }


def read(root: Path, token: str) -> dict:
    return json.loads((root / f"{token}.json").read_text())


def test_a_followed_session_is_written_at_once_then_when_due_and_changed(tmp_path: Path) -> None:
    steps = iter(range(1, 100))
    builds = []

    def build() -> dict:
        builds.append(1)
        return payload(next(steps) // 2)  # the same payload twice in a row

    feeder = feed.Feeder(tmp_path)
    token = feeder.follow("session", build, payload(0), seconds=1.0)
    assert read(tmp_path, token)["panels"][0]["series"][0] == {"x": [0, 0], "y": [1.0, None]}  # NaN: null
    assert feeder.follow("session", build, payload(0), seconds=1.0) == token  # the same file for the session
    feeder.tick(now=0.0)
    assert builds == []  # not due yet
    written = []
    for second in range(1, 5):
        feeder.tick(now=1e9 + second)
        written.append(read(tmp_path, token)["panels"][0]["series"][0]["x"][1])
    assert len(builds) == 4 and written == [0, 1, 1, 2]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_the_last_live_payload_is_written_and_then_nothing_is_built(tmp_path: Path) -> None:
    builds = []

    def build() -> dict:
        builds.append(1)
        return payload(len(builds), live=len(builds) < 2, signature=f"s{len(builds) >= 2}")

    feeder = feed.Feeder(tmp_path)
    token = feeder.follow("session", build, payload(0, signature="sFalse"), seconds=1.0)
    for second in range(1, 6):
        feeder.tick(now=1e9 + second)
    assert len(builds) == 2
    assert read(tmp_path, token)["live"] is False and read(tmp_path, token)["signature"] == "sTrue"


def test_during_set_up_without_panels_the_payload_is_rebuilt_four_times_as_often(tmp_path: Path) -> None:
    builds = []

    def build() -> dict:
        builds.append(1)
        return {**payload(0), "panels": [] if len(builds) < 3 else payload(0)["panels"]}

    feeder = feed.Feeder(tmp_path)
    feeder.follow("session", build, {**payload(0), "panels": []}, seconds=1.0)
    start = 1e9
    for tenth in range(1, 41):  # four seconds
        feeder.tick(now=start + tenth / 10)
    # three builds in the first second (every 0.25 s until one has panels), then one a second: 3 + 3
    assert feed.SETUP_SHARE == 0.25 and len(builds) == 6, len(builds)


def test_a_build_that_a_page_run_replaced_meanwhile_is_not_written(tmp_path: Path) -> None:
    feeder = feed.Feeder(tmp_path)

    def old_build() -> dict:  # the page reruns (new choices) while the old ones are being built
        feeder.follow("session", lambda: payload(2), payload(1), seconds=1.0)
        return payload(0)

    token = feeder.follow("session", old_build, payload(0, signature="old"), seconds=1.0)
    feeder.tick(now=1e9)
    assert read(tmp_path, token)["panels"][0]["series"][0]["x"] == [0, 1]  # the new page run's payload stays
    feeder.tick(now=2e9)
    assert read(tmp_path, token)["panels"][0]["series"][0]["x"] == [0, 2]


def test_ended_sessions_are_dropped_and_a_failing_build_stops_no_other(tmp_path: Path) -> None:
    alive = {"a": True, "b": True}
    feeder = feed.Feeder(tmp_path, alive=lambda session: alive[session])

    def broken() -> dict:
        raise RuntimeError("a damaged run folder")

    token_a = feeder.follow("a", broken, payload(0), seconds=1.0)
    token_b = feeder.follow("b", lambda: payload(7), payload(0), seconds=1.0)
    feeder.tick(now=1e9)
    assert read(tmp_path, token_a)["panels"][0]["series"][0]["x"] == [0, 0]  # kept as it was
    assert read(tmp_path, token_b)["panels"][0]["series"][0]["x"] == [0, 7]
    alive["b"] = False
    feeder.tick(now=2e9)
    assert feeder.following() == ["a"] and not (tmp_path / f"{token_b}.json").exists()
    feeder.forget("a")
    assert feeder.following() == [] and not list(tmp_path.iterdir())


def test_the_feed_folders_of_servers_that_ended_are_swept(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead, alive = tmp_path / ended.stdout.strip(), tmp_path / str(os.getppid())
    for folder in (dead, alive, tmp_path / "notes"):
        folder.mkdir()
        (folder / "x.json").write_text("{}")
    feed.sweep(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, "notes"])


def canvas_args(at) -> dict:
    """The arguments of the page's live curves canvas (the painter component with a feed)."""
    found = [json.loads(element.proto.json_args) for element in at.get("component_instance")]
    return next(args for args in found if args.get("feed"))


def last_x(args: dict) -> float:
    panel = next(p for p in args["panels"] if p["key"] == "loss")
    return panel["series"][-1]["x"][-1]


def test_a_running_runs_canvas_is_fed_what_a_rerun_paints_until_it_stops(app) -> None:
    from ui import runs

    app.switch_page("pages/isotropy.py").run()
    app.number_input(key="probe.steps").set_value(100_000)
    app.number_input(key="probe.limit").set_value(120)
    app.number_input(key="probe.snapshot_every").set_value(0)
    app.run()
    app.button(key="probe.start").click().run()
    job = runs.registry().jobs()[-1]
    try:
        wait_for(lambda: (job.last_step or 0) >= 2, 120, "the run's first steps")
        app.run()
        assert not app.exception and not errors(app)
        drawn = canvas_args(app)
        file = feed.folder() / f"{drawn['feed']['token']}.json"
        fed = json.loads(file.read_text())
        assert fed["signature"] == drawn["feed"]["signature"] and fed["live"] is True
        assert [p["key"] for p in fed["panels"]] == [p["key"] for p in drawn["panels"]]
        assert fed["progress"][0]["text"].startswith(runs.run_label(job))
        # the server's feed thread goes on painting the growing curves, with no rerun of the page
        wait_for(
            lambda: last_x(json.loads(file.read_text())) > last_x(drawn) + 2, 60, "the fed curve to grow"
        )
        assert json.loads(file.read_text())["signature"] == drawn["feed"]["signature"]
        job.stop()
        wait_idle(30)
        # the last payload says the run stopped: the canvas then asks the page for a rerun
        wait_for(lambda: json.loads(file.read_text())["live"] is False, 30, "the feed's last payload")
        assert json.loads(file.read_text())["signature"] != drawn["feed"]["signature"]
    finally:
        job.stop()
        wait_idle(30)
