"""Retake the app's screenshots in docs/screenshots/ (shown in the README and on the Overview page).

    python scripts/refresh_screenshots.py

Runs the browser test's flow (tests/e2e/browser_flow.py: a fresh ``streamlit run app.py`` with its own cache
folder, Playwright + /usr/bin/chromium, a small probe run on the demo corpus), which saves its screenshots in
test-artifacts/screenshots/, then copies them into docs/screenshots/. The browser test itself never writes
into docs/.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "screenshots"
sys.path[:0] = [str(REPO / "tests" / "e2e"), str(REPO / "tests")]  # browser_flow and its helper modules

import browser_flow  # noqa: E402 - needs the path above


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    if not browser_flow.CHROMIUM.exists():
        raise SystemExit(f"{browser_flow.CHROMIUM} not installed")
    with tempfile.TemporaryDirectory(prefix="embedlab-shots-") as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir()
        with browser_flow.streamlit_server(cache) as server, browser_flow.chromium() as browser:
            browser_flow.run_watch_switch_reload_download(browser, server, browser_flow.SHOTS, Path(tmp))
    DOCS.mkdir(parents=True, exist_ok=True)
    for name in browser_flow.SCREENSHOTS:
        shutil.copyfile(browser_flow.SHOTS / name, DOCS / name)
        print(f"{(DOCS / name).relative_to(REPO)} <- {(browser_flow.SHOTS / name).relative_to(REPO)}")


if __name__ == "__main__":
    main()
