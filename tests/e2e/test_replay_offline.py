"""The replay lesson in a real browser, offline: opened from ``file://`` with every other request aborted.

Checked: no console error and no request leaves the file; every chart renders (the covariance spectrum, and
the probe's class alignment beside SimCSE's alignment on one plane); Play advances the ``step N``
text; the slider moves the film's points (to where Plotly itself puts them), the cursor on every curve (read
from the Plotly layout's shapes and from the line drawn) and the ring on the relation figure. The page's
state is read from its DOM (``#film``'s data attributes); the page ships no test hook. The page forbids
eval (its Content-Security-Policy), so the waits are Playwright's ``expect`` on the DOM, never
``wait_for_function``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from app_server import CHROMIUM
from browser_flow import chromium

from engine.replay import lesson
from tests.replay.test_replay import make_probe_run, make_simcse_run

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium not installed")
    pytest.importorskip("playwright.sync_api")
    root = tmp_path_factory.mktemp("replay")
    probe = make_probe_run(root / "probe-run", steps=60, n=90, snapshot_every=10, geometry=True)
    simcse = make_simcse_run(root / "simcse-run")
    other = make_probe_run(root / "other-probe", steps=45, n=40, snapshot_every=15, labels=("a", "b"), seed=1)
    files = {"both": root / "both.html", "simcse": root / "simcse.html", "two films": root / "two.html"}
    files["both"].write_bytes(lesson([probe, simcse], compute=False)[0])
    files["simcse"].write_bytes(lesson([simcse], compute=False)[0])
    files["two films"].write_bytes(lesson([probe, other], compute=False)[0])
    return files


@pytest.fixture(scope="module")
def browser(lessons):
    with chromium() as running:
        yield running


class Offline:
    """A page opened from ``file://`` whose every other request is aborted and recorded, errors collected."""

    def __init__(self, browser, path: Path):
        from playwright.sync_api import expect

        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        self.page.route("**/*", self._route)
        self.page.goto(path.as_uri())
        expect(self.page.locator("body")).to_have_attribute("data-ready", "1", timeout=60_000)

    def _route(self, route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.requests.append(route.request.url)
            route.abort()


CURSORS = """() => Array.from(document.querySelectorAll('#curves .js-plotly-plot')).map(gd => {
    const xa = gd._fullLayout.xaxis, path = gd.querySelector('.shapelayer path[data-index="0"]');
    const box = path.getBoundingClientRect(), plot = gd.getBoundingClientRect();
    return {metric: gd.parentNode.dataset.key, x0: gd.layout.shapes[0].x0, x1: gd.layout.shapes[0].x1,
            drawn: box.left + box.width / 2 - plot.left,
            expected: xa._offset + xa.l2p(gd.layout.shapes[0].x0)};
})"""
POINTS = """() => Array.from(document.querySelectorAll('#film .scatterlayer .trace'))
    .map(t => Array.from(t.querySelectorAll('path.point')).map(p => p.getAttribute('transform')))"""
# the pixel position Plotly's axes give each point of the film's data (the test's own computation)
PLOTLY_POINTS = """() => { const gd = document.getElementById('film'), xa = gd._fullLayout.xaxis,
    ya = gd._fullLayout.yaxis;
    return gd.data.map(t => Array.from(t.x).map((x, k) => [xa.c2p(x), ya.c2p(t.y[k])])); }"""
RING = """() => { const gd = document.querySelector('[data-panel="iso_sil"] .js-plotly-plot');
    const ring = gd.layout.shapes[0];
    return {x: ring.xanchor, y: ring.yanchor, visible: ring.visible}; }"""


def xy(transform: str) -> tuple[float, float]:
    """The pixel position of ``translate(x,y)``."""
    x, y = transform.removeprefix("translate(").rstrip(")").split(",")
    return float(x), float(y)


def test_the_lesson_renders_offline_with_no_error_and_no_request(browser, lessons) -> None:
    view = Offline(browser, lessons["both"])
    page = view.page
    metrics = [
        "loss",
        "accuracy",
        "isoscore",
        "silhouette",
        "alignment",
        "uniformity",
        "sts_spearman",
        "class_alignment",
        "rankme",
    ]
    assert sorted(
        page.evaluate(
            "() => Array.from(document.querySelectorAll('#curves [data-key]')).map(d => d.dataset.key)"
        )
    ) == sorted(metrics)
    assert page.locator("#curves .main-svg").count() >= len(metrics)
    assert page.locator("#curves .scatterlayer .trace").count() >= len(metrics)
    assert page.locator("#film path.point").count() == 90
    assert page.locator('[data-panel="iso_sil"] .scatterlayer path.point').count() == 60
    assert page.locator('[data-panel="align_uniform"] .scatterlayer .trace').count() >= 2  # probe and SimCSE
    legend = page.locator('[data-panel="align_uniform"] .legendtext').all_text_contents()
    assert "probe-run (class alignment)" in legend and "simcse-run" in legend, legend
    assert (
        page.locator("#spectrum .scatterlayer .trace").count() >= 12
    )  # a line per logged spectrum (5, ..., 60)
    assert page.locator("#step-label").inner_text() == "step 10"
    assert page.locator("#film-run option").count() == 1
    assert "simcse-run kept no embedding snapshots" in page.locator("#film-notes").inner_text()
    assert view.errors == [] and view.requests == []
    page.close()


def test_play_advances_the_step_and_pause_stops_it(browser, lessons) -> None:
    from playwright.sync_api import expect

    view = Offline(browser, lessons["both"])
    page, label = view.page, view.page.locator("#step-label")
    button = page.locator("#play")
    page.get_by_role("button", name="▶ Play").click()
    expect(button).to_have_text("❚❚ Pause")
    expect(label).not_to_have_text("step 10", timeout=10_000)  # it moves on...
    expect(label).to_have_text("step 60", timeout=20_000)  # ...to the last frame, and stops there
    expect(button).to_have_text("▶ Play")
    assert int(page.locator("#film").get_attribute("data-renders")) >= 6  # every frame was shown on the way
    button.click()  # from the end, Play starts again from the first frame
    expect(button).to_have_text("❚❚ Pause")
    button.click()
    expect(button).to_have_text("▶ Play")
    expect(button).to_have_attribute("aria-pressed", "false")
    assert view.errors == [] and view.requests == []
    page.close()


def test_the_slider_moves_the_points_every_cursor_and_the_ring(browser, lessons) -> None:
    from playwright.sync_api import expect

    view = Offline(browser, lessons["both"])
    page, label, slider = view.page, view.page.locator("#step-label"), view.page.locator("#slider")
    before_points, before_ring = page.evaluate(POINTS), page.evaluate(RING)
    assert all(c["x0"] == 10 for c in page.evaluate(CURSORS))
    slider.focus()
    page.keyboard.press("End")
    expect(label).to_have_text("step 60")
    for cursor in page.evaluate(CURSORS):
        assert cursor["x0"] == cursor["x1"] == 60, cursor
        assert abs(cursor["drawn"] - cursor["expected"]) < 1.5, (
            cursor
        )  # the line drawn is where the layout says
    ring = page.evaluate(RING)
    assert ring["visible"] and ring != before_ring
    iso_sil_at_60 = page.evaluate("""() => {
        const gd = document.querySelector('[data-panel="iso_sil"] .js-plotly-plot');
        const d = gd._fullData[0], i = Array.from(d.customdata).indexOf(60); return [d.x[i], d.y[i]]; }""")
    assert [ring["x"], ring["y"]] == iso_sil_at_60
    moved = page.evaluate(POINTS)
    assert moved != before_points
    by_plotly = page.evaluate(PLOTLY_POINTS)  # where Plotly's own axes put the film's data now
    assert [len(t) for t in by_plotly] == [len(t) for t in moved]
    assert (
        max(
            abs(a - b)
            for ours, theirs in zip(moved, by_plotly)
            for p, q in zip(ours, theirs)
            for a, b in zip(xy(p), q)
        )
        < 0.011
    )  # the fast move put every point where Plotly puts it
    page.keyboard.press("Home")
    expect(label).to_have_text("step 10")
    assert all(c["x0"] == 10 for c in page.evaluate(CURSORS))
    assert view.errors == [] and view.requests == []
    page.close()


def test_a_lesson_without_a_film_says_it_needs_snapshots(browser, lessons) -> None:
    view = Offline(browser, lessons["simcse"])
    page = view.page
    assert page.locator("#film-controls").is_hidden()
    assert "film needs snapshots" in page.locator("#film-notes").inner_text()
    assert page.locator("#curves .main-svg").count() >= 5
    assert view.errors == [] and view.requests == []
    page.close()


def test_the_run_picker_switches_the_film_and_keeps_the_step(browser, lessons) -> None:
    from playwright.sync_api import expect

    view = Offline(browser, lessons["two films"])
    page, label = view.page, view.page.locator("#step-label")
    page.locator("#slider").focus()
    page.keyboard.press("ArrowRight")
    expect(label).to_have_text("step 20")
    page.locator("#film-run").select_option(label="other-probe")
    expect(label).to_have_text("step 15")  # the other film's frame nearest to step 20 (15, 30, 45)
    expect(page.locator("#film path.point")).to_have_count(40)
    assert page.evaluate("document.getElementById('slider').max") == "2"
    page.locator("#slider").focus()
    page.keyboard.press("End")
    expect(label).to_have_text("step 45")
    assert all(c["x0"] == 45 for c in page.evaluate(CURSORS))
    assert view.errors == [] and view.requests == []
    page.close()
