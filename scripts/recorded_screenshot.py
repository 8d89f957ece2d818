"""The recorded Figure 2 runs played to the end in projector mode at the projector's 1280×720:
``docs/screenshots/figure2-recorded.png`` (SimCSE page, "Play the recorded runs (3 seeds, full length)", then
projector mode turned on at the play's first frame, as in a class: the sidebar's control is hidden in it),
and the page's text printed (for a review of what the page says beside the charts).

    python scripts/recorded_screenshot.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "screenshots"
sys.path[:0] = [str(REPO), str(REPO / "tests" / "e2e"), str(REPO / "tests")]

import browser_flow  # noqa: E402 - needs the path above
from probe_js import PROGRESS_TEXTS  # noqa: E402
from waiting import wait_for  # noqa: E402

LABEL = "Play the recorded runs (3 seeds, full length)"


def last_step(page) -> int:
    texts = page.evaluate(PROGRESS_TEXTS)
    found = [int(m.group(1)) for t in texts for m in [re.search(r"Recorded runs · step (\d+)/", t)] if m]
    return max(found) if found else -1


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="embedlab-recorded-shot-") as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir()
        with browser_flow.streamlit_server(cache) as server, browser_flow.chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            why = browser_flow.explain(page, server)
            page.goto(f"{server.url}/simcse")
            button = page.get_by_role("button", name=LABEL)
            button.wait_for(timeout=120_000)
            wait_for(lambda: browser_flow.idle(page), 60, "the SimCSE page", describe=why)
            button.click()
            wait_for(lambda: last_step(page) >= 0, 60, "the first recorded frame", interval=0.2, describe=why)
            browser_flow.projector_on(page, server)
            wait_for(lambda: last_step(page) == 100, 120, "the last step", interval=0.5, describe=why)
            page.mouse.move(1279, 719)  # no panel under the pointer: no mode bar on the picture
            page.wait_for_timeout(2000)
            page.screenshot(path=str(DOCS / "figure2-recorded.png"))
            print(page.locator("[data-testid='stMain']").inner_text())
    print(f"saved {(DOCS / 'figure2-recorded.png').relative_to(REPO)}")


if __name__ == "__main__":
    main()
