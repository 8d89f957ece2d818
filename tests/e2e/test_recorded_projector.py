"""Recorded Figure 2 in projector mode, in a real browser (issue 58; ui/recorded.py and
engine/charts/recorded.py): at the projector's 1280×720, the SimCSE page's recorded runs played to their last
step show the lesson's charts, the alignment–uniformity plane and STS, wholly within the first screen (no
scrolling), their tick labels at least the projector style's size (:data:`engine.charts.PROJECTOR`, the live
charts' one), and the four ablations' end markers on the plane differ in symbol and colour. Its screenshot
goes to test-artifacts/screenshots/ (docs/ only through scripts/recorded_screenshot.py)."""

from __future__ import annotations

import pytest
from browser_flow import SHOTS, VIEWPORTS, explain, idle, projector_on, step_shown
from waiting import wait_for

from engine import charts

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

LABEL = "Play the recorded runs (3 seeds, full length)"
PLANE, STS = "Each run's path", "STS Spearman"  # the two charts' titles begin so
ABLATIONS = 4

# Every chart of the main area: its title, [left, top, right, bottom] in px of the window, and its tick
# labels' font sizes (px).
CHARTS = (
    "() => [...document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot\")].map(g => {"
    " const r = g.getBoundingClientRect(); const t = g.querySelector('.gtitle');"
    " return {title: t ? t.textContent : '', box: [r.left, r.top, r.right, r.bottom],"
    " ticks: [...g.querySelectorAll('.xtick text, .ytick text')].filter(e => e.textContent.trim())"
    ".map(e => parseFloat(getComputedStyle(e).fontSize))}; })"
)
# The plane's end markers (its traces out of the legend that are no start circle), as drawn: [the shape's
# path, its fill] of each; null without the plane.
ENDS = (
    "() => { const g = [...document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot\")]"
    f".find(g => (g.querySelector('.gtitle') || {{}}).textContent?.startsWith({PLANE!r}));"
    " if (!g) return null; const drawn = g.querySelectorAll('.scatterlayer .trace');"
    " return g.data.map((t, i) => [t, drawn[i]])"
    ".filter(([t]) => t.showlegend === false && t.marker.symbol !== 'circle-open')"
    ".map(([, d]) => d.querySelector('path.point')).filter(p => p)"
    ".map(p => [p.getAttribute('d'), getComputedStyle(p).fill]); }"
)


def recorded_step(page) -> int:
    """The recorded runs' step counter ("Recorded runs · step N/100"), or -1 before it is drawn."""
    return step_shown(page, "Recorded runs · ")


@pytest.fixture(scope="module")
def looked(server, browser) -> dict:
    """The SimCSE page at 1280×720 with the recorded runs played to their last step in projector mode: its
    charts and the plane's end markers, its screenshot saved."""
    page = browser.new_page(viewport=dict(zip(("width", "height"), VIEWPORTS["projector"], strict=True)))
    why = explain(page, server)
    page.goto(f"{server.url}/simcse")
    page.get_by_role("button", name=LABEL).wait_for(timeout=90_000)
    wait_for(lambda: idle(page), 60, "the SimCSE page", describe=why)
    page.get_by_role("button", name=LABEL).click()  # the sidebar's control: before projector mode hides it
    wait_for(lambda: recorded_step(page) >= 0, 60, "the first recorded frame", interval=0.2, describe=why)
    projector_on(page, server)
    wait_for(lambda: recorded_step(page) == 100, 120, "the last recorded step", interval=0.5, describe=why)
    page.wait_for_timeout(1500)  # the last frame drawn
    found = {"charts": page.evaluate(CHARTS), "ends": page.evaluate(ENDS)}
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "recorded-projector-1280x720.png"))
    page.close()
    return found


def chart(looked: dict, title: str) -> dict:
    found = [c for c in looked["charts"] if c["title"].startswith(title)]
    assert found, f"no chart titled {title!r}: {[c['title'] for c in looked['charts']]}"
    return found[0]


@pytest.mark.parametrize("title", [PLANE, STS])
def test_the_plane_and_sts_are_on_the_first_screen_in_the_projectors_type(looked, title: str) -> None:
    width, height = VIEWPORTS["projector"]
    seen = chart(looked, title)
    left, top, right, bottom = seen["box"]
    assert left >= 0 and top >= 0 and right <= width and bottom <= height, (
        f"{title}: [left, top, right, bottom] {seen['box']} in {width}×{height}"
    )
    assert seen["ticks"] and min(seen["ticks"]) >= charts.PROJECTOR.font, (title, sorted(set(seen["ticks"])))


def test_the_ablations_end_markers_differ_in_symbol_and_colour(looked) -> None:
    ends = looked["ends"]
    assert ends is not None and len(ends) == ABLATIONS, ends
    assert len({shape for shape, _ in ends}) == ABLATIONS, f"end markers' shapes: {ends}"
    assert len({fill for _, fill in ends}) == ABLATIONS, f"end markers' colours: {ends}"
