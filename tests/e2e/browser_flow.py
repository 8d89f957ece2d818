"""The real-browser flow of tests/e2e/test_browser.py, also run by scripts/refresh_screenshots.py.

``streamlit run app.py`` on a free localhost port (own cache folder, no shared data, hub offline), driven by
Playwright + Debian chromium. :func:`run_watch_switch_reload_download` starts a small probe run on the
Isotropy page, watches the charts (and the covariance spectrum) grow while it runs, switches pages and comes
back to the same run, reloads and re-attaches, downloads the run's CSV and checks its rows, and saves
screenshots of four pages into the folder it is given (the test: ``test-artifacts/screenshots/``, ignored by
git; only the script copies them into docs/screenshots/).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from app_server import CHROMIUM, CHROMIUM_ARGS, REPO, log_tail, running_app
from probe_js import CHART_CURVE, FILM_SHOWN, LIVE_RENDERS, PROGRESS_TEXTS, SPECTRUM_LINES
from waiting import wait_for

from engine.core import settings
from ui.navigation import PAGES

ARTIFACTS = REPO / "test-artifacts"  # ignored by git
SHOTS = ARTIFACTS / "screenshots"
SCREENSHOTS = ("overview.png", "isotropy.png", "compare.png", "simcse.png")
START = re.compile(r"Start$")  # the sidebar's Start (its Material icon's name may come first)
LEAVE = re.compile("Leave projector mode")  # the projector's way out (its icon may change)
STEPS = 1000  # long enough to watch the charts grow
OVERVIEW_TEXT = "watch sentence embeddings take shape"  # a sentence of the Overview, the app's first page
TITLES = [title for _, title, _ in PAGES]  # the app's pages, as its navigation declares them
_LOGGED_WARNING = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) (streamlit\S*): (.*)$")


@dataclass(frozen=True)
class Server:
    url: str
    cache: Path  # its cache folder (runs/ ...), with server.log
    pid: int

    def log_tail(self, chars: int = 3000) -> str:
        return log_tail(self.cache / "server.log", chars)


def streamlit_warnings(log: str) -> list[str]:
    """The warnings (and errors) that Streamlit logged, one line each, from a server log written in
    :data:`app_server.LOG_FORMAT`: a widget given a default and a Session State value, a deprecated one."""
    return [line for line in log.splitlines() if _LOGGED_WARNING.match(line)]


@contextlib.contextmanager
def streamlit_server(cache: Path) -> Iterator[Server]:
    """``streamlit run app.py`` writing into ``cache`` (its log: ``server.log``), until the block ends."""
    env = {
        **os.environ,
        "EMBEDLAB_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "EMBEDLAB_APP_DATA_DIR": "none",
    }
    env.pop("EMBEDLAB_DATA_DIR", None)
    with running_app(env, cache / "server.log") as (proc, url):
        yield Server(url, cache, proc.pid)


@contextlib.contextmanager
def chromium() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def nice_of(pid: int) -> int:
    """The nice value of a process's main thread (Linux /proc: field 19 of stat)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


#: the projection worker's UMAP child's command (engine.jobs.frame_process.CHILD_MAIN)
UMAP_CHILD = "engine.jobs.frame_process"


def child_processes(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (the run's child and the warm spare)."""
    return [
        int(child)
        for task in Path(f"/proc/{pid}/task").glob("*/children")
        for child in task.read_text().split()
    ]


# Injected by the test (not the app's code): counts the times the page's title element is marked stale, which
# Streamlit does at every full rerun of the page (a fragment rerun leaves it alone).
STALE_COUNTER = (
    "() => { window.testStaleTitles = 0; const title = document.querySelector(\"[data-testid='stHeading']\")"
    ".closest(\"[data-testid='stElementContainer']\"); new MutationObserver(() => {"
    " if (title.getAttribute('data-stale') === 'true') window.testStaleTitles += 1; })"
    ".observe(title, {attributes: true, attributeFilter: ['data-stale']}); }"
)


def step_shown(page, prefix: str = "") -> int:
    """The step of the progress texts that read ``{prefix}step N/…`` ("step N/60"; the recorded runs'
    "Recorded runs · step N/100"), the largest, or -1 before the first step."""
    texts = page.evaluate(PROGRESS_TEXTS)
    pattern = re.escape(prefix) + r"step (\d+)/"
    found = [int(m.group(1)) for t in texts for m in [re.search(pattern, t)] if m]
    return max(found) if found else -1


def points_in_first_chart(page) -> int:
    return int(page.evaluate(CHART_CURVE, None)[0])


def last_step_in_first_chart(page) -> float:
    """The last x (step) of the first chart's newest curve: grows while the run goes, even when the live
    curve is downsampled to a fixed number of points."""
    return float(page.evaluate(CHART_CURVE, None)[1])


def finished(run_dir: Path) -> bool:
    """Whether the run's status says finished (False while its folder has no status file yet: the folder is
    made a moment before the file)."""
    status = run_dir / "status.json"
    return status.exists() and '"finished"' in status.read_text()


def idle(page) -> bool:
    """Whether no script run of the page's session is going (Streamlit's own marker on its app element)."""
    return page.locator("[data-testid='stApp']").first.get_attribute("data-test-script-state") == "notRunning"


def open_overview(page, server: Server, describe=None) -> None:
    """Open the app at its first page, the Overview, and wait as a reader would before going on: its text
    shown, its script run over and every image it shows loaded. A click within milliseconds of the load
    ends the Overview's script run before the browser asked for its screenshot, and Streamlit then answers
    that image's URL with 404 (its media files live as long as the run that drew them)."""
    page.goto(server.url)
    page.get_by_text(OVERVIEW_TEXT).wait_for(timeout=90_000)
    wait_for(lambda: idle(page) and images_loaded(page), 60, "the Overview", describe=describe)


def images_loaded(page) -> bool:
    """Whether the browser has loaded every image the page shows (a broken one never counts as loaded)."""
    return page.evaluate("() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")


def sidebar_pages(page) -> list[str]:
    """The page titles of the sidebar's navigation."""
    return [
        text.strip()
        for text in page.locator("[data-testid='stSidebarNavLink'] span[label]").all_inner_texts()
    ]


def explain(page, server: Server):
    """A ``describe`` for :func:`wait_for`: saves a screenshot, gives the page text and the server log
    tails."""

    def describe() -> str:
        shot = ARTIFACTS / "e2e-timeout.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        main = page.locator("[data-testid='stMain']")
        body = main.first.inner_text()[-1500:] if main.count() else ""
        return f"screenshot: {shot}\npage text tail:\n{body}\n{server.log_tail()}"

    return describe


def set_number(page, label: str, value: int, describe=None, timeout: float = 30) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_for(
        lambda: box.input_value() == str(value) and idle(page),
        timeout,
        f"{label} = {value} to be taken",
        describe=describe,
    )


def go(page, title: str, heading: str | None = None) -> None:
    page.get_by_role("link", name=title).first.click()
    page.get_by_role("heading", name=heading or title).first.wait_for(timeout=60_000)


def film_shown(page) -> bool:
    return bool(page.evaluate(FILM_SHOWN)) and idle(page)


def run_watch_switch_reload_download(browser, server: Server, shots: Path, downloads: Path) -> None:
    """The flow (see the module's docstring); screenshots go to ``shots``, the downloaded CSV to
    ``downloads``."""
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
    why = explain(page, server)
    open_overview(page, server, why)
    wait_for(
        lambda: page.locator("[data-testid='stGraphVizChart'] svg").count() > 0 and idle(page),
        60,
        "the overview's diagram",
        describe=why,
    )
    page.screenshot(path=str(shots / "overview.png"), full_page=True)

    go(page, "Isotropy vs clusters")
    set_number(page, "Steps (Adam updates)", STEPS)
    set_number(page, "Limit (items, 0 = all)", 300)
    set_number(page, "UMAP frame every k steps (0 = off)", 5)
    page.get_by_role("button", name=START).click()

    # curves grow while the run goes
    wait_for(
        lambda: points_in_first_chart(page) >= 2, 120, "the first chart points", interval=0.5, describe=why
    )
    before, step_before = last_step_in_first_chart(page), step_shown(page)
    wait_for(
        lambda: last_step_in_first_chart(page) > before and step_shown(page) > step_before,
        60,
        "the charts to grow",
        interval=0.5,
        describe=why,
    )
    label = page.evaluate(PROGRESS_TEXTS)[0].split(" — ")[0].strip()
    # the run's name, made from its settings (engine.runlog.naming), "(2)" after another run of that name
    assert re.search(r" steps( \(\d+\))?$", label), label
    # the live view is redrawn from its own fragment, not from page reruns: three draws, and meanwhile no
    # full rerun (which would mark the page's title stale: the test's own observer counts those)
    page.evaluate(STALE_COUNTER)
    renders = page.evaluate(LIVE_RENDERS)
    wait_for(
        lambda: page.evaluate(LIVE_RENDERS) >= renders + 3,
        60,
        "three draws of the live view",
        interval=0.5,
        describe=why,
    )
    assert page.evaluate("() => window.testStaleTitles") <= 1, page.evaluate("() => window.testStaleTitles")
    # the covariance spectrum is drawn live too, one line per logged spectrum so far
    wait_for(
        lambda: page.evaluate(SPECTRUM_LINES) >= 1, 60, "the live spectrum chart", interval=0.5, describe=why
    )
    live_panel_turns_interactive_under_the_pointer(page, why)

    # training first: the server's event loop yields to the run's child (engine.compute.priority)
    # the UMAP child is the exception: below the training (engine.jobs.frame_process)
    normal = os.getpriority(os.PRIO_PROCESS, 0)  # the server started with this process's priority
    children = child_processes(server.pid)
    umap = [pid for pid in children if UMAP_CHILD in Path(f"/proc/{pid}/cmdline").read_bytes().decode()]
    runs = [pid for pid in children if pid not in umap]
    assert runs and all(nice_of(pid) == normal for pid in runs), {pid: nice_of(pid) for pid in children}
    assert all(nice_of(pid) >= max(normal, 10) for pid in umap), {pid: nice_of(pid) for pid in umap}
    assert nice_of(server.pid) == max(normal, settings.default("ui_nice"))

    # switch pages and come back: the same run, still going or done
    go(page, "Overview", "embedlab — watch sentence embeddings take shape")
    go(page, "Isotropy vs clusters")
    page.get_by_text(label).first.wait_for(timeout=30_000)

    # reload: a new session re-attaches to the run
    page.reload()
    page.get_by_role("heading", name="Isotropy vs clusters").wait_for(timeout=90_000)
    page.get_by_text(label).first.wait_for(timeout=30_000)

    # wait for the end (the page reruns itself when the run ends), then download its CSV
    run_dirs = list((server.cache / "runs").glob("probe-*"))
    assert len(run_dirs) == 1
    wait_for(
        lambda: finished(run_dirs[0]),
        240,
        "the run to finish",
        interval=0.5,
        describe=why,
    )
    page.get_by_role("button", name=f"{label}.csv").wait_for(timeout=30_000)
    wait_for(lambda: film_shown(page), 240, "the run's UMAP film", interval=0.5, describe=why)
    assert page.evaluate(SPECTRUM_LINES) >= 2  # after the run: Plotly, several steps coloured over training
    page.screenshot(path=str(shots / "isotropy.png"), full_page=True)
    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name=f"{label}.csv").click()
    target = downloads / "run.csv"
    info.value.save_as(target)
    table = pd.read_csv(target)
    assert table["step"].tolist() == list(range(STEPS + 1))
    assert table["silhouette"].iloc[-1] > table["silhouette"].iloc[0]

    go(page, "Compare runs")
    wait_for(lambda: film_shown(page), 60, "the compared run's charts and film", interval=0.5, describe=why)
    page.screenshot(path=str(shots / "compare.png"), full_page=True)
    go(page, "SimCSE training")
    wait_for(
        lambda: page.get_by_text("No SimCSE runs yet").count() > 0 and idle(page),
        60,
        "the SimCSE page",
        interval=0.5,
        describe=why,
    )
    page.screenshot(path=str(shots / "simcse.png"), full_page=False)
    page.close()


def live_panel_turns_interactive_under_the_pointer(page, why) -> None:
    """While a run trains, the live view draws its panels as static plots (no hover, zoom or mode bar layers
    to rebuild every second: engine/web/charts.js); the panel under the pointer is drawn interactive, with
    Plotly's mode bar, and stays so through the redraws while the pointer is on it."""
    panel = page.locator(".embedlab-grid [data-panel]").first
    assert panel.get_attribute("data-interactive") == "false"
    assert panel.locator(".modebar").count() == 0
    panel.hover()
    wait_for(
        lambda: panel.get_attribute("data-interactive") == "true" and panel.locator(".modebar").count() == 1,
        10,
        "the panel under the pointer drawn interactive",
        interval=0.2,
        describe=why,
    )

    modebar, title = panel.locator(".modebar").first, panel.locator(".gtitle").first
    boxes = modebar.bounding_box(), title.bounding_box()
    assert overlap(*boxes) == 0, boxes  # the mode bar never covers the title

    def newest() -> float:  # the newest step the panel drew
        return float(panel.get_attribute("data-last-x"))

    renders, last_x = page.evaluate(LIVE_RENDERS), newest()
    wait_for(
        lambda: page.evaluate(LIVE_RENDERS) >= renders + 2 and newest() > last_x,
        60,
        "the panel under the pointer redrawn with new points",
        interval=0.5,
        describe=why,
    )
    assert panel.get_attribute("data-interactive") == "true"
    page.mouse.move(1, 1)  # the pointer leaves: the panel is static again from its next redraw
    wait_for(
        lambda: panel.get_attribute("data-interactive") == "false",
        30,
        "the panel drawn static after the pointer left",
        interval=0.5,
        describe=why,
    )


def hidden(page, selector: str) -> bool:
    """Whether no element matching ``selector`` is displayed."""
    return page.evaluate(
        "(sel) => [...document.querySelectorAll(sel)].every(e => getComputedStyle(e).display === 'none'"
        " || e.getBoundingClientRect().width === 0)",
        selector,
    )


def overlap(one: dict | None, other: dict | None) -> float:
    """The area two Playwright bounding boxes share (0 when apart, or when either is missing)."""
    if not one or not other:
        return 0.0
    width = min(one["x"] + one["width"], other["x"] + other["width"]) - max(one["x"], other["x"])
    height = min(one["y"] + one["height"], other["y"] + other["height"]) - max(one["y"], other["y"])
    return max(width, 0.0) * max(height, 0.0)


def isotropy_charts_shown(page, why, seconds: float, what: str) -> None:
    """Wait (``seconds`` at most) until the Isotropy page shows its heading and charts, and is idle."""
    page.get_by_role("heading", name="Isotropy vs clusters").first.wait_for(timeout=seconds * 1000)
    wait_for(lambda: page.locator(".js-plotly-plot").count() > 0 and idle(page), seconds, what, describe=why)


def projector_mode(browser, server: Server, shots: Path) -> dict:
    """On the Isotropy page (showing the newest run): turn projector mode on, check that the sidebar and the
    header are hidden and the figures' text is large, save ``projector.png``, and turn it off again.
    Returns what it measured (the smallest Plotly font size, the sidebar and header states)."""
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    why = explain(page, server)
    page.goto(f"{server.url}/isotropy")
    isotropy_charts_shown(page, why, 90, "the run's charts")
    page.get_by_text("Projector mode", exact=True).first.click()
    page.get_by_role("button", name=LEAVE).wait_for(timeout=30_000)
    wait_for(
        lambda: page.locator(".js-plotly-plot").count() >= 2 and idle(page),
        60,
        "the projector charts",
        describe=why,
    )
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(g =>"  # as rendered
        " [...g.querySelectorAll('svg text')].filter(t => t.textContent.trim())"
        ".map(t => parseFloat(getComputedStyle(t).fontSize)))"
    )
    measured = {
        "font": min(min(s) for s in sizes if s),
        "charts": len(sizes),
        "sidebar_hidden": hidden(page, "[data-testid='stSidebar']"),
        "header_hidden": hidden(page, "header[data-testid='stHeader']"),
        "leave_overlaps": overlap(
            page.get_by_role("button", name=LEAVE).bounding_box(),
            page.locator("[data-testid='stMultiSelect']").first.bounding_box(),
        ),
    }
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "projector.png"), full_page=False)
    page.get_by_role("button", name=LEAVE).click()
    wait_for(
        lambda: not hidden(page, "[data-testid='stSidebar']") and idle(page),
        30,
        "the sidebar back",
        describe=why,
    )
    page.close()
    return measured


# ------------------------------------------------------------------------------- a room's screens

#: the screens of tests/e2e/test_viewports.py and of docs/screenshots/viewport-*.png
VIEWPORTS = {"projector": (1280, 720), "laptop": (1366, 768), "full-hd": (1920, 1080)}


def viewport_shot(name: str) -> str:
    """The screenshot file of viewport ``name`` (``viewport-1280x720-projector.png``)."""
    width, height = VIEWPORTS[name]
    return f"viewport-{width}x{height}-{name}.png"


def start_long_run(browser, server: Server, size: tuple[int, int]):
    """Start a long, small probe run on the Isotropy page (its charts stay live for minutes); its page,
    once the first chart has points."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{server.url}/isotropy")
    page.get_by_role("heading", name="Isotropy vs clusters").first.wait_for(timeout=90_000)
    set_number(page, "Steps (Adam updates)", 100_000)
    set_number(page, "Limit (items, 0 = all)", 300)
    set_number(page, "UMAP frame every k steps (0 = off)", 25)
    page.get_by_role("button", name=START).click()
    why = explain(page, server)
    wait_for(lambda: points_in_first_chart(page) >= 2, 180, "the first chart points", describe=why)
    return page


def open_isotropy(browser, server, size: tuple[int, int]):
    """A new session's Isotropy page at ``size``, once its live charts and its projection are drawn."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{server.url}/isotropy")
    page.get_by_role("heading", name="Isotropy vs clusters").first.wait_for(timeout=90_000)
    wait_for(
        lambda: page.locator("[data-testid='stMain'] .js-plotly-plot").count() >= 2 and idle(page),
        120,
        "the live charts and the projection",
        interval=0.5,
        describe=explain(page, server),
    )
    page.wait_for_timeout(1500)  # a redraw of the live view with its fetched description
    return page


# Every chart of the main area: [left, top, right, bottom] in px of the window.
CHART_BOXES = (
    "() => [...document.querySelectorAll(\"[data-testid='stMain'] .js-plotly-plot\")].map(g => {"
    " const r = g.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
)


def projector_on(page, server) -> None:
    """Turn projector mode on and wait for its charts, the click's page run over (the elements of the page
    before it are gone then) and the charts' boxes still. While a run trains, the live fragments rerun every
    few seconds, so an idle page is a short window on loaded cores: it is looked for every 0.1 s."""
    page.get_by_text("Projector mode", exact=True).first.click()
    wait_for(
        lambda: (
            page.get_by_role("button", name="Leave projector mode").count() > 0
            and page.locator("[data-testid='stMain'] .js-plotly-plot").count() >= 2
            and idle(page)
        ),
        120,
        "projector mode's charts",
        interval=0.1,
        describe=explain(page, server),
    )
    boxes_still(page)


def boxes_still(page, tries: int = 20) -> None:
    """Wait (up to ``tries`` seconds) until the main area's chart boxes are the same one second apart: a page
    between two script runs may show an element of the last run beside the new run's for a moment."""
    before = page.evaluate(CHART_BOXES)
    for _ in range(tries):
        page.wait_for_timeout(1000)
        now = page.evaluate(CHART_BOXES)
        if now == before:
            return
        before = now


def viewport_screenshots(browser, server: Server, shots: Path) -> list[str]:
    """While a long run trains: the Isotropy page at each of :data:`VIEWPORTS` (projector mode at the
    projector's), saved in ``shots``; the file names."""
    shots.mkdir(parents=True, exist_ok=True)
    training = start_long_run(browser, server, VIEWPORTS["laptop"])
    names = []
    for name, size in VIEWPORTS.items():
        page = open_isotropy(browser, server, size)
        if name == "projector":
            projector_on(page, server)
        page.screenshot(path=str(shots / viewport_shot(name)))
        names.append(viewport_shot(name))
        page.close()
    training.get_by_role("button", name="Stop").first.click()
    training.close()
    return names
