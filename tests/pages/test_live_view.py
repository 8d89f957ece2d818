"""The live view (ui/live_view.py, ui/live.py) and its feed (ui/feed.py): a running run's page hands the live
component a chart description (engine/charts/description.py) of the curves the page shows, with the runs'
progress; the feed's thread writes the next descriptions to a file of the static folder, only when due and
changed, stops after the last live payload, and drops feeds their pages stopped renewing. Plotly.js is the
installed package's file, served from the static folder."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
from apphelpers import errors, wait_idle
from waiting import wait_for

from engine.core import settings
from ui import feed, live_view


def payload(step: int, live: bool = True, signature: str = "s") -> dict:
    return {
        "description": {"panels": [{"key": "loss", "series": [{"x": [0, step], "y": [1.0, math.nan]}]}]},
        "signature": signature,
        "live": live,
    }


def read(root: Path, token: str) -> dict:
    return feed.read_fed(root / f"{token}.json")


def test_a_followed_session_is_written_at_once_then_when_due_and_changed(tmp_path: Path) -> None:
    steps = iter(range(1, 100))
    builds = []

    def build() -> dict:
        builds.append(1)
        return payload(next(steps) // 2)  # the same payload twice in a row

    feeder = feed.Feeder(tmp_path)
    token = feeder.follow("session", build, payload(0), seconds=1.0, now=1e9)
    assert read(tmp_path, token)["description"]["panels"][0]["series"][0] == {
        "x": [0, 0],
        "y": [1.0, None],
    }  # NaN: null
    assert (
        feeder.follow("session", build, payload(0), seconds=1.0, now=1e9) == token
    )  # the same file for the session
    feeder.tick(now=1e9)
    assert builds == []  # not due yet
    written = []
    for second in range(1, 5):
        feeder.tick(now=1e9 + second)
        written.append(read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"][1])
    assert len(builds) == 4 and written == [0, 1, 1, 2]
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_the_last_live_payload_is_written_and_then_nothing_is_built(tmp_path: Path) -> None:
    builds = []

    def build() -> dict:
        builds.append(1)
        return payload(len(builds), live=len(builds) < 2, signature=f"s{len(builds) >= 2}")

    feeder = feed.Feeder(tmp_path)
    token = feeder.follow("session", build, payload(0, signature="sFalse"), seconds=1.0, now=1e9)
    for second in range(1, 6):
        feeder.tick(now=1e9 + second)
    assert len(builds) == 2
    assert read(tmp_path, token)["live"] is False and read(tmp_path, token)["signature"] == "sTrue"


def test_during_set_up_without_panels_the_payload_is_rebuilt_four_times_as_often(tmp_path: Path) -> None:
    builds = []

    def build() -> dict:
        builds.append(1)
        return payload(0) if len(builds) >= 3 else {**payload(0), "description": {"panels": []}}

    feeder = feed.Feeder(tmp_path)
    feeder.follow("session", build, {**payload(0), "description": {"panels": []}}, seconds=1.0, now=1e9)
    start = 1e9
    for tenth in range(1, 41):  # four seconds
        feeder.tick(now=start + tenth / 10)
    # three builds in the first second (every 0.25 s until one has panels), then one a second: 3 + 3
    assert feed.SETUP_SHARE == 0.25 and len(builds) == 6, len(builds)


def test_a_build_that_a_page_run_replaced_meanwhile_is_not_written(tmp_path: Path) -> None:
    feeder = feed.Feeder(tmp_path)

    def old_build() -> dict:  # the page reruns (new choices) while the old ones are being built
        feeder.follow("session", lambda: payload(2), payload(1), seconds=1.0, now=1e9 - 1)
        return payload(0)

    token = feeder.follow("session", old_build, payload(0, signature="old"), seconds=1.0, now=1e9 - 1)
    feeder.tick(now=1e9)
    assert read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"] == [
        0,
        1,
    ]  # the new page run's payload stays
    feeder.tick(now=1e9 + 1)
    assert read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"] == [0, 2]


def test_feeds_not_renewed_are_dropped_and_a_failing_build_stops_no_other(tmp_path: Path) -> None:
    feeder = feed.Feeder(tmp_path, lease=30.0)

    def broken() -> dict:
        raise RuntimeError("a damaged run folder")

    token_a = feeder.follow("a", broken, payload(0), seconds=1.0, now=1e9)
    token_b = feeder.follow("b", lambda: payload(7), payload(0), seconds=1.0, now=1e9)
    feeder.tick(now=1e9 + 1)
    assert read(tmp_path, token_a)["description"]["panels"][0]["series"][0]["x"] == [0, 0]  # kept as it was
    assert read(tmp_path, token_b)["description"]["panels"][0]["series"][0]["x"] == [0, 7]
    assert feeder.follow("a", broken, payload(0), seconds=1.0, now=1e9 + 20) == token_a  # a renews its lease
    feeder.tick(now=1e9 + 31)  # b's page has not renewed its feed for 30 s: closed
    assert feeder.following() == ["a"] and not list(tmp_path.glob(f"{token_b}*"))
    feeder.forget("a")
    assert feeder.following() == [] and not list(tmp_path.iterdir())


def test_a_page_run_pauses_a_feed_without_removing_the_file_its_component_fetches(tmp_path: Path) -> None:
    """Every page run forgets its session's feed first (``feed.forget``) and follows again if it still shows a
    live view: meanwhile the component on the page keeps fetching its URL, which must not go missing (a 404
    in the browser's console); a page that does not follow again loses the file after one lease."""
    feeder = feed.Feeder(tmp_path, lease=30.0)
    token = feeder.follow("a", lambda: payload(1), payload(0), seconds=1.0, now=100.0)
    feeder.forget("a", keep_file=True, now=101.0)
    assert feeder.following() == [] and (tmp_path / f"{token}.json").exists()
    assert feeder.follow("a", lambda: payload(2), payload(0), seconds=1.0, now=102.0) == token  # same URL
    feeder.forget("a", keep_file=True, now=103.0)
    feeder.tick(now=120.0)
    assert (tmp_path / f"{token}.json").exists()  # within the lease
    feeder.tick(now=134.0)
    assert not list(tmp_path.iterdir())  # never followed again: removed


def test_a_pointer_keeps_its_length_and_a_payload_file_never_changes_once_written(tmp_path: Path) -> None:
    """A file replaced while the server sends it breaks the response (its length from one version, its bytes
    from the next: "Content-Length mismatch" in the browser, "Exception in ASGI application" in the server
    log). The pointer file always has one length; each payload goes to a new file, the last few kept."""
    feeder = feed.Feeder(tmp_path, lease=30.0)
    token = feeder.follow("a", lambda: payload(0), payload(0), seconds=1.0, now=0.0)
    sizes, first = set(), (tmp_path / f"{token}.json").read_text()
    payloads: dict[str, bytes] = {}
    for step in range(1, 9):
        feeder._write(feeder._follows["a"], feed.encode(payload(step * 1000)))
        sizes.add((tmp_path / f"{token}.json").stat().st_size)
        for found in tmp_path.glob(f"{token}-*.json"):
            assert (
                payloads.setdefault(found.name, found.read_bytes()) == found.read_bytes()
            )  # never rewritten
        assert read(tmp_path, token)["description"]["panels"][0]["series"][0]["x"] == [0, step * 1000]
    assert len(sizes) == 1 and len(first) in sizes
    assert len(list(tmp_path.glob(f"{token}-*.json"))) == feed.KEPT_VERSIONS


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


def descriptions(at) -> list[dict]:
    """The chart descriptions of the page's live components (custom components v2)."""
    found = []
    for element in at.get("bidi_component"):
        proto = element.proto
        data = json.loads(proto.json) if proto.json else json.loads(proto.mixed.json)
        found.append(data)
    return found


def curves_of(at) -> dict:
    """The data of the page's live curves component (the one whose key ends in ``.live``)."""
    return next(data for data in descriptions(at) if data["description"]["panels"])


def last_step(panel: dict) -> float:
    x = panel["figure"]["data"][-1]["x"]
    return float(np.frombuffer(base64.b64decode(x["bdata"]), dtype="<f8")[-1])


def test_plotly_js_is_the_installed_packages_file_served_from_the_static_folder(tmp_path: Path) -> None:
    url = live_view.serve_plotly(tmp_path)
    served = tmp_path / url.removeprefix("app/static/")
    assert (
        url.startswith("app/static/plotly-") and served.read_bytes() == live_view.plotly_source().read_bytes()
    )
    assert live_view.serve_plotly(tmp_path) == url and sorted(p.name for p in tmp_path.iterdir()) == [
        served.name
    ]


def test_a_running_runs_page_draws_its_curves_from_a_description_that_grows(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    app.number_input(key="probe.steps").set_value(100_000)
    app.number_input(key="probe.limit").set_value(120)
    app.number_input(key="probe.snapshot_every").set_value(0)
    app.run()
    app.button(key="probe.start").click().run()
    job = runs.registry().jobs()[-1]
    try:
        wait_for(lambda: (job.rows.last_step or 0) >= 2, 120, "the run's first steps")
        app.run()
        assert not app.exception and not errors(app)
        data = curves_of(app)
        assert data["plotly"].startswith("app/static/plotly-")
        assert data["feed"]["seconds"] == settings.get("live_seconds")  # the component's refresh period
        drawn = data["description"]
        keys = [panel["key"] for panel in drawn["panels"]]
        assert "loss" in keys and drawn["progress"][0]["text"].startswith(runs.run_label(job))
        loss = next(panel for panel in drawn["panels"] if panel["key"] == "loss")
        assert loss["figure"]["layout"]["title"]["text"].startswith("Training loss")
        # the server's feed thread goes on writing the growing curves, with no rerun of the page
        file = feed.STATIC / data["feed"]["url"].removeprefix("app/static/")
        fed = feed.read_fed(file)
        assert fed["signature"] == data["feed"]["signature"] and fed["live"] is True
        assert [p["key"] for p in fed["description"]["panels"]] == keys

        def fed_loss() -> dict:
            found = feed.read_fed(file)["description"]["panels"]
            return next(p for p in found if p["key"] == "loss")

        wait_for(lambda: last_step(fed_loss()) > last_step(loss) + 2, 60, "the fed curve to grow")
        assert feed.read_fed(file)["signature"] == data["feed"]["signature"]
        job.stop()
        wait_idle()
        # the last payload says the run stopped: the component then asks the page for a rerun
        wait_for(lambda: feed.read_fed(file)["live"] is False, 30, "the feed's last payload")
        assert feed.read_fed(file)["signature"] != data["feed"]["signature"]
        # the run this session watched live stays in the same component, its finished charts drawn without a
        # feed and with every point (replacing it by Streamlit's charts blanked them for a moment)
        app.run()
        assert not app.exception and not errors(app)
        ended = curves_of(app)
        assert ended["feed"] is None and ended["description"]["progress"] == []
        loss = next(panel for panel in ended["description"]["panels"] if panel["key"] == "loss")
        assert last_step(loss) == job.rows.last_step
    finally:
        job.stop()
        wait_idle()
