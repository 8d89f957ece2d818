"""Retake the app's screenshots in docs/screenshots/ (shown in the README and on the Overview page).

    python scripts/refresh_screenshots.py [--only app|replay|claims|tested]

Runs the browser test's flow (tests/e2e/browser_flow.py: a fresh ``streamlit run app.py`` with its own cache
folder, Playwright + /usr/bin/chromium, a small probe run on the demo corpus), which saves its screenshots in
test-artifacts/screenshots/, then, while a long run trains, the Isotropy page on a room's three screens
(``viewport-1280x720-projector.png`` in projector mode, ``viewport-1366x768-laptop.png``,
``viewport-1920x1080-full-hd.png``: tests/e2e/test_viewports.py checks their layout), and copies them all into
docs/screenshots/. The browser tests themselves never write into docs/.

``claims.png`` is the Overview's claims table: the longest table ``python -m engine claims`` saved in this
checkout's cache (``cache/claims/<protocol>.json``), shown by a server whose cache holds only that file.

``replay.png`` is the lecture replay of a demo probe run: ``python -m engine probe --data demo`` (150 updates,
a snapshot every 5), ``python -m engine replay RUN --out lesson.html``, the file opened from ``file://`` in
chromium with the film's slider half way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "screenshots"
# this tree's engine (not an installed copy), browser_flow and its helper modules
sys.path[:0] = [str(REPO), str(REPO / "tests" / "e2e"), str(REPO / "tests")]

import app_server  # noqa: E402 - needs the path above
import browser_flow  # noqa: E402 - needs the path above


def app_screenshots() -> None:
    """The pages, from the browser test's flow, and the three viewports, copied from test-artifacts/ into
    docs/screenshots/."""
    with tempfile.TemporaryDirectory(prefix="embedlab-shots-") as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir()
        with browser_flow.streamlit_server(cache) as server, browser_flow.chromium() as browser:
            browser_flow.run_watch_switch_reload_download(browser, server, browser_flow.SHOTS, Path(tmp))
            viewports = browser_flow.viewport_screenshots(browser, server, browser_flow.SHOTS)
    for name in [*browser_flow.SCREENSHOTS, *viewports]:
        shutil.copyfile(browser_flow.SHOTS / name, DOCS / name)
        print(f"{(DOCS / name).relative_to(REPO)} <- {(browser_flow.SHOTS / name).relative_to(REPO)}")


def _engine(*argv: str, cache: Path) -> None:
    from engine.core import settings

    env = {**os.environ, "HF_HUB_OFFLINE": "1", settings.SETTINGS["cache_dir"].env: str(cache)}
    subprocess.run([sys.executable, "-m", "engine", *argv], cwd=REPO, env=env, check=True)


def replay_screenshot() -> None:
    """The lecture replay of a demo probe run, opened offline, the film half way through."""
    from playwright.sync_api import expect

    with tempfile.TemporaryDirectory(prefix="embedlab-replay-shot-") as tmp:
        cache, run, html = Path(tmp) / "cache", Path(tmp) / "demo-clusters", Path(tmp) / "lesson.html"
        cache.mkdir()
        _engine(
            "probe",
            "--data",
            "demo",
            "--steps",
            "150",
            "--snapshot-every",
            "5",
            "--out",
            str(run),
            cache=cache,
        )
        _engine("replay", str(run), "--out", str(html), cache=cache)
        with browser_flow.chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.route(
                "**/*",
                lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort(),
            )
            page.goto(html.as_uri())
            expect(page.locator("body")).to_have_attribute("data-ready", "1", timeout=60_000)
            slider = page.locator("input[type=range]").first
            slider.evaluate(
                "el => { el.value = Math.round(el.max / 2); el.dispatchEvent(new Event('input')); }"
            )
            page.wait_for_timeout(500)  # one redraw (measured ≤ 100 ms)
            page.screenshot(path=str(DOCS / "replay.png"))
    print(f"{(DOCS / 'replay.png').relative_to(REPO)} <- python -m engine replay (demo probe run)")


def claims_screenshot() -> None:
    """The Overview page with its claims expander open, over the claims table saved in this checkout."""
    from engine.claims import latest

    found = latest.saved_tables()
    if not found:
        raise SystemExit("no claims table saved: run python -m engine claims first")
    saved = max(found, key=lambda item: latest.length(item[1]))[0]  # the one the Overview shows
    with tempfile.TemporaryDirectory(prefix="embedlab-claims-shot-") as tmp:
        cache = Path(tmp) / "cache"
        (cache / "claims").mkdir(parents=True)
        shutil.copy(saved, cache / "claims" / saved.name)
        with browser_flow.streamlit_server(cache) as server, browser_flow.chromium() as browser:
            page = browser.new_page(viewport={"width": 1366, "height": 1100})
            page.goto(server.url)
            page.get_by_text("The latest claims table").click(timeout=90_000)
            page.get_by_text("paper verdict").first.wait_for(timeout=30_000)
            page.wait_for_timeout(1500)
            expander = page.locator('[data-testid="stExpander"]', has_text="The latest claims table")
            expander.scroll_into_view_if_needed()
            expander.screenshot(path=str(DOCS / "claims.png"))
    print(f"{(DOCS / 'claims.png').relative_to(REPO)} <- the Overview's claims table ({saved})")


#: the screenshots of browser tests of their own (a settings link, projector mode with four runs)
TESTED = {
    "tests/e2e/test_settings_link_browser.py": ("simcse-same-mask-link.png", "simcse-link-note.png"),
    "tests/e2e/test_projector_runs.py": ("projector-four-runs.png",),
}


def tested_screenshots() -> None:
    """Run the browser tests that take the link's and the four-run projector's screenshots, and copy them."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", *TESTED], cwd=REPO, env=env, check=True)
    for name in [name for names in TESTED.values() for name in names]:
        shutil.copyfile(browser_flow.SHOTS / name, DOCS / name)
        print(f"{(DOCS / name).relative_to(REPO)} <- {(browser_flow.SHOTS / name).relative_to(REPO)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only",
        choices=("app", "replay", "claims", "tested"),
        help="retake only the pages, the replay, the claims or the screenshots of their own browser tests",
    )
    args = parser.parse_args()
    if not app_server.CHROMIUM.exists():
        raise SystemExit(f"{app_server.CHROMIUM} not installed")
    DOCS.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "app"):
        app_screenshots()
    if args.only in (None, "replay"):
        replay_screenshot()
    if args.only in (None, "claims"):
        claims_screenshot()
    if args.only in (None, "tested"):
        tested_screenshots()


if __name__ == "__main__":
    main()
