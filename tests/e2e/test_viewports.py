"""The layout on a room's screens, in a real browser (Playwright + /usr/bin/chromium, the server helpers of
browser_flow.py): while a probe run trains,

- at 1366×768 (a laptop) the first row of live charts starts within the first 400 px;
- in projector mode at 1280×720 (a projector) every chart (the curve and the UMAP frame) is fully on the
  screen without scrolling, and no text of the page or of a chart is under 16 px;
- at 1280×720, 1366×768 and 1920×1080 no title, tick label or slider label is clipped: a text element is
  inside its chart's drawing (and the window), and an HTML label is as wide as its text.

Screenshots of the three viewports go to test-artifacts/screenshots/ (docs/ only through
scripts/refresh_screenshots.py).
"""

from __future__ import annotations

import pytest
from browser_flow import (
    CHART_BOXES,
    SHOTS,
    VIEWPORTS,
    boxes_still,
    open_isotropy,
    projector_on,
    start_long_run,
    streamlit_warnings,
    viewport_shot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

LAPTOP, PROJECTOR = VIEWPORTS["laptop"], VIEWPORTS["projector"]
CHARTS_WITHIN = 400  # px from the top of the window: where the first row of live charts must start
SMALLEST_PROJECTED_FONT = 16  # px

# The first chart of the page's main area (the live view's first panel while a run trains): its top, px
# from the top of the window; null without one.
FIRST_CHART_TOP = (
    "() => { const g = document.querySelector(\"[data-testid='stMain'] .js-plotly-plot\");"
    " return g ? g.getBoundingClientRect().top : null; }"
)
# The main area's elements (Streamlit's element containers) with text: [top px, first 80 characters], to
# say what stands above a chart that is pushed off the screen.
ELEMENTS = (
    "() => [...document.querySelectorAll(\"[data-testid='stMain'] [data-testid='stElementContainer']\")]"
    ".map(e => [Math.round(e.getBoundingClientRect().top), e.getBoundingClientRect().height > 0,"
    " e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 80)])"
    ".filter(x => x[1] && x[2]).map(x => [x[0], x[2]])"
)
# Clipped text, one description each: a chart's title, tick label or slider label (Plotly's SVG text)
# outside its chart's drawing or the window; an HTML title, widget label (slider labels included) or
# caption whose text is wider than its box (cut or ellipsised).
CLIPPED = (
    "() => { const out = []; const W = window.innerWidth; const tol = 1;"
    " for (const g of document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot\")) {"
    "  const svg = g.querySelector('svg.main-svg'); if (!svg) continue;"
    "  const box = svg.getBoundingClientRect();"
    "  for (const t of g.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .xtick text,"
    " .ytick text, .slider-container text')) {"
    "   if (!t.textContent.trim()) continue; const r = t.getBoundingClientRect();"
    "   if (r.width === 0) continue;"
    "   if (r.left < Math.max(box.left, 0) - tol || r.right > Math.min(box.right, W) + tol"
    "     || r.top < box.top - tol || r.bottom > box.bottom + tol)"
    "    out.push(`chart text '${t.textContent.trim()}' at [${Math.round(r.left)}, ${Math.round(r.right)}]"
    " outside [${Math.round(box.left)}, ${Math.round(box.right)}]`); } }"
    " for (const e of document.querySelectorAll(\"[data-testid='stMain'] h1, [data-testid='stMain'] h2,"
    " [data-testid='stMain'] h3, [data-testid='stWidgetLabel'] p, [data-testid='stCaptionContainer'],"
    " [data-testid='stSliderTickBar'] > div, [data-testid='stSliderThumbValue']\")) {"
    "  const r = e.getBoundingClientRect(); if (r.width === 0 || !e.textContent.trim()) continue;"
    "  if (e.scrollWidth > e.clientWidth + tol || r.right > W + tol || r.left < -tol)"
    "   out.push(`'${e.textContent.trim().slice(0, 60)}' is ${e.scrollWidth} px wide`"
    " + ` in ${e.clientWidth} px`); }"
    " return out; }"
)
# The font sizes (px) of every visible text of the main area: chart text and the page's own.
FONT_SIZES = (
    "() => { const out = [];"
    " for (const t of document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot svg text\"))"
    "  if (t.textContent.trim() && t.getBoundingClientRect().width > 0)"
    "   out.push([parseFloat(getComputedStyle(t).fontSize), t.textContent.trim().slice(0, 40)]);"
    " for (const e of document.querySelectorAll(\"[data-testid='stMain'] p, [data-testid='stMain'] h1,"
    " [data-testid='stMain'] label, [data-testid='stMain'] button, .embedlab-progress-text\"))"
    "  if (e.textContent.trim() && e.getBoundingClientRect().width > 0)"
    "   out.push([parseFloat(getComputedStyle(e).fontSize), e.textContent.trim().slice(0, 40)]);"
    " return out; }"
)


@pytest.fixture(scope="module")
def training(server, browser):
    """A probe run that trains through this module's tests (long, small: the charts stay live)."""
    page = start_long_run(browser, server, LAPTOP)
    yield page
    page.close()


@pytest.fixture(scope="module")
def looks(server, browser, training):
    """``looks(name)``: what a new session's Isotropy page measures at viewport ``name`` (projector mode on
    for "projector") while the run trains: its first chart's top, its charts' boxes, its font sizes, its
    clipped texts; each viewport is opened once for the module (a page load costs 10-20 s on 2 cores
    beside the run), its screenshot saved to test-artifacts/screenshots/."""
    seen: dict[str, dict] = {}

    def look(name: str) -> dict:
        if name not in seen:
            page = open_isotropy(browser, server, VIEWPORTS[name])
            if name == "projector":
                projector_on(page, server)
            boxes_still(page)
            seen[name] = {
                "first_chart_top": page.evaluate(FIRST_CHART_TOP),
                "chart_boxes": page.evaluate(CHART_BOXES),
                "elements": page.evaluate(ELEMENTS),
                "font_sizes": page.evaluate(FONT_SIZES),
                "clipped": page.evaluate(CLIPPED),
            }
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / viewport_shot(name)))
            page.close()
        return seen[name]

    return look


def test_at_1366x768_the_live_charts_start_in_the_first_400_px(looks) -> None:
    top = looks("laptop")["first_chart_top"]
    assert top is not None and top <= CHARTS_WITHIN, f"the first live chart starts at y = {top} px"


def test_in_projector_mode_at_1280x720_every_chart_is_on_screen_in_large_type(looks) -> None:
    seen = looks("projector")
    boxes, fonts = seen["chart_boxes"], seen["font_sizes"]
    width, height = PROJECTOR
    off_screen = [box for box in boxes if box[0] < 0 or box[1] < 0 or box[2] > width or box[3] > height]
    assert len(boxes) >= 2 and not off_screen, (
        f"charts [left, top, right, bottom]: {boxes}; the page's elements [top, text]: {seen['elements']}"
    )
    small = sorted({(size, text) for size, text in fonts if size < SMALLEST_PROJECTED_FONT})
    assert not small, f"text under {SMALLEST_PROJECTED_FONT} px: {small[:12]}"


@pytest.mark.parametrize("name", list(VIEWPORTS))
def test_no_title_tick_label_or_slider_label_is_clipped(looks, name: str) -> None:
    clipped = looks(name)["clipped"]
    size = VIEWPORTS[name]
    assert not clipped, f"{size[0]}×{size[1]}: {clipped[:12]}"


def test_the_server_logged_no_streamlit_warning(server, training) -> None:
    """Last: nothing this module did made Streamlit warn (e.g. a widget's default set twice)."""
    found = streamlit_warnings((server.cache / "server.log").read_text())
    assert not found, "\n".join(found[:10])
