"""Projector mode with four runs at 1280×720, in a real browser (Playwright + /usr/bin/chromium): the four
SimCSE Figure-2 runs (finished run folders, opened by the page's ``?runs=`` link), projector mode on, the
alignment–uniformity plane with each run's path chosen: the run chips, the chart, its legend and both axis
titles are inside the window without scrolling, and the page does not scroll. The screenshot goes to
test-artifacts/screenshots/projector-four-runs.png."""

from __future__ import annotations

import pytest
from app_server import CHROMIUM
from browser_flow import SHOTS, chromium, explain, idle, streamlit_server, streamlit_warnings
from waiting import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

WIDTH, HEIGHT = 1280, 720
RUNS = {
    "fig2-unsup": "SimCSE Figure 2 · unsup simcse",
    "fig2-nodrop": "SimCSE Figure 2 · dropout 0",
    "fig2-delete": "SimCSE Figure 2 · augment delete one word",
    "fig2-same": "SimCSE Figure 2 · same mask",
}
PATH_CHOICE = "Alignment vs uniformity: each run's path (SimCSE Fig. 2)"
#: the boxes that must be on the screen: [what, left, top, right, bottom] in px of the window
BOXES = (
    "() => { const out = [];"
    " const add = (what, e) => { if (!e) { out.push([what, null]); return; }"
    "  const r = e.getBoundingClientRect(); out.push([what, r.left, r.top, r.right, r.bottom]); };"
    " const g = document.querySelector(\"[data-testid='stMain'] .js-plotly-plot\");"
    " add('chart', g); add('legend', g && g.querySelector('.legend'));"
    " add('x title', g && g.querySelector('.g-xtitle text'));"
    " add('y title', g && g.querySelector('.g-ytitle text'));"
    " add('title', g && g.querySelector('.gtitle'));"
    ' document.querySelectorAll(".st-key-run-picker [data-tag]").forEach('
    "  (t, i) => add('chip ' + i, t));"
    " return out; }"
)
SCROLLS = (
    "() => [...document.querySelectorAll('*')].filter(e => { const s = getComputedStyle(e);"
    " return (s.overflowY === 'auto' || s.overflowY === 'scroll') && e.scrollHeight > e.clientHeight + 2"
    " && e.getBoundingClientRect().height > 200; }).map(e => (e.dataset.testid || e.className || e.tagName)"
    " + ' ' + e.scrollHeight + '>' + e.clientHeight)"
)


def write_runs(cache) -> None:
    from engine import runlog

    for index, (folder, name) in enumerate(RUNS.items()):
        rows = [
            {
                "step": step,
                "loss": 2.0 / (step + 1),
                "alignment": 0.15 + 0.05 * index + step / 400,
                "uniformity": -1.2 - step / (40 + 10 * index),
                "stsb_spearman": 0.6 + step / 500,
            }
            for step in range(0, 101, 10)
        ]
        config = {"kind": "simcse", "mode": "unsup", "steps": 100, "data_dir": None, "eval": None}
        writer = runlog.RunWriter(cache / "runs" / folder, list(rows[0]), {**config, "name": name})
        for row in rows:
            writer.append(row)
        writer.finish("finished")


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory: pytest.TempPathFactory):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium not installed")
    pytest.importorskip("playwright.sync_api")
    cache = tmp_path_factory.mktemp("projector-runs-cache")
    write_runs(cache)
    with streamlit_server(cache) as server, chromium() as browser:
        yield server, browser


def outside(boxes: list) -> list[str]:
    found = []
    for what, *box in boxes:
        if box == [None]:
            found.append(f"{what}: missing")
            continue
        left, top, right, bottom = box
        if left < -1 or top < -1 or right > WIDTH + 1 or bottom > HEIGHT + 1:
            found.append(f"{what}: [{left:.0f}, {top:.0f}, {right:.0f}, {bottom:.0f}]")
    return found


def test_four_runs_fit_a_projector_screen(four_runs) -> None:
    server, browser = four_runs
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    why = explain(page, server)
    page.goto(f"{server.url}/simcse?runs={','.join(RUNS)}")
    page.get_by_role("heading", name="SimCSE training").first.wait_for(timeout=90_000)
    wait_for(
        lambda: page.locator(".js-plotly-plot").count() > 0 and idle(page), 90, "the charts", describe=why
    )
    assert page.locator(".st-key-run-picker [data-tag]").count() == len(RUNS)
    page.get_by_text("Projector mode", exact=True).first.click()
    page.get_by_role("button", name="Leave projector mode").wait_for(timeout=30_000)
    wait_for(lambda: idle(page), 60, "projector mode", describe=why)
    page.locator("[data-testid='stMain'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name=PATH_CHOICE).click()
    wait_for(
        lambda: (
            idle(page)
            and "Each run's path"
            in page.locator("[data-testid='stMain'] .js-plotly-plot .gtitle").first.text_content()
            or ""
        ),
        60,
        "the path figure",
        describe=why,
    )
    page.wait_for_timeout(1500)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "projector-four-runs.png"))
    boxes = page.evaluate(BOXES)
    assert len([b for b in boxes if b[0].startswith("chip")]) == len(RUNS)
    assert not outside(boxes), outside(boxes)
    assert page.locator("[data-testid='stMain'] .js-plotly-plot .legend .traces").count() == len(RUNS)
    assert not page.evaluate(SCROLLS), page.evaluate(SCROLLS)
    page.close()
    assert not streamlit_warnings((server.cache / "server.log").read_text())
