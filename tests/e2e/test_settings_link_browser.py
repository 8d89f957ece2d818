"""A link that opens a lesson's settings, in a real browser (Playwright + /usr/bin/chromium): the SimCSE
page opened with ``?preset=SimCSE Figure 2&same_mask=true`` shows the preset's settings with "Same mask" on
and starts nothing; "Copy link to these settings" gives a URL that opens the same settings in a new tab.
The screenshot goes to test-artifacts/screenshots/simcse-same-mask-link.png."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from browser_flow import SHOTS, explain, idle, streamlit_warnings
from waiting import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

LINK = "/simcse?preset=" + quote("SimCSE Figure 2") + "&same_mask=true&steps=300"


def settled(page, server) -> None:
    page.get_by_role("heading", name="SimCSE training").first.wait_for(timeout=90_000)
    wait_for(lambda: idle(page), 60, "the page's script run", describe=explain(page, server))
    page.wait_for_timeout(500)


def fields_shown(page) -> dict:
    sidebar = page.locator("[data-testid='stSidebar']")
    return {
        "same_mask": sidebar.get_by_label("Same mask (fixed 0.1)", exact=True).is_checked(),
        "steps": sidebar.get_by_label("Steps", exact=True).input_value(),
        "eval_every": sidebar.get_by_label("Evaluate every k steps", exact=True).input_value(),
    }


def test_a_link_opens_the_same_mask_settings_and_copies_back(browser, server) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(server.url + LINK)
    settled(page, server)
    wanted = {"same_mask": True, "steps": "300", "eval_every": "10"}
    # the fields as the reader sees them once the page has settled (under load a field read in the middle
    # of a redraw once showed 0)
    wait_for(lambda: fields_shown(page) == wanted, 30, "the link's settings", describe=explain(page, server))
    shown = fields_shown(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar.get_by_text("Opened from a link").count() == 1
    assert "SimCSE Figure 2" in sidebar.get_by_text("Opened from a link").inner_text()
    assert page.get_by_text("Ignored from the link").count() == 0
    assert page.get_by_text("No SimCSE runs yet").count() == 1  # nothing started: Start is the reader's
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "simcse-link-note.png"))
    sidebar.get_by_label("Same mask (fixed 0.1)", exact=True).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / "simcse-same-mask-link.png"))
    sidebar.get_by_text("Copy link to these settings").click()
    code = sidebar.locator("[data-testid='stCode'] code").first
    code.wait_for(timeout=30_000)
    copied = code.inner_text().strip()
    assert copied.startswith(server.url + "/simcse?") and "same_mask=true" in copied and "steps=300" in copied
    other = browser.new_page(viewport={"width": 1366, "height": 768})
    other.goto(copied)
    settled(other, server)
    wait_for(
        lambda: fields_shown(other) == shown,
        30,
        "the copied link's settings",
        describe=explain(other, server),
    )
    other.goto(server.url + "/simcse?steps=-5&dropout=lots")
    settled(other, server)
    warning = other.get_by_text("Ignored from the link").inner_text()
    assert "steps" in warning and "dropout" in warning
    assert other.locator("[data-testid='stSidebar']").get_by_label("Steps", exact=True).input_value() == "100"
    page.close()
    other.close()
    assert not streamlit_warnings((server.cache / "server.log").read_text())
