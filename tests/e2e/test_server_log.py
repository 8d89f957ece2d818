"""Streamlit logs no warning while a lecturer clicks through the app: the Overview's demo (whose settings
the Isotropy sidebar then shows: the widget values the Session State API sets), a preset on every
experiment page, every page of the navigation, projector mode on and off. The server's log names each line's
level (app_server.LOG_FORMAT); any WARNING or ERROR line of a ``streamlit`` logger fails the test."""

from __future__ import annotations

import pytest
from browser_flow import (
    LEAVE,
    TITLES,
    chromium,
    explain,
    go,
    idle,
    isotropy_charts_shown,
    open_overview,
    streamlit_warnings,
)
from waiting import wait_for

OVERVIEW = "embedlab — watch sentence embeddings take shape"  # the Overview's heading
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_streamlit_warning_lines_are_found_and_others_are_not() -> None:
    log = "\n".join(
        [
            "2026-11-25 21:03:51,395 INFO streamlit.web.server: You can now view your Streamlit app",
            "2026-11-25 21:03:52,001 WARNING streamlit.elements.lib.policies: The widget with key "
            '"probe.steps" was created with a default value but also had its value set via the Session '
            "State API.",
            "2026-11-25 21:03:53,002 WARNING engine.probe.loop: IsoScore is capped",
            "2026-11-25 21:03:54,003 ERROR streamlit.runtime.scriptrunner: Uncaught app exception",
            "Traceback (most recent call last):",
        ]
    )
    found = streamlit_warnings(log)
    assert [line.split()[2] for line in found] == ["WARNING", "ERROR"]
    assert "probe.steps" in found[0] and "Uncaught" in found[1]


def test_clicking_through_the_app_logs_no_streamlit_warning(server) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        why = explain(page, server)
        open_overview(page, server, why)
        page.get_by_role("button", name="Start the demo").click()  # its settings fill the Isotropy sidebar
        isotropy_charts_shown(page, why, 120, "the demo's charts")
        page.get_by_role("button", name="Stop").first.click()
        for title in TITLES:
            go(page, title, OVERVIEW if title == "Overview" else None)
            wait_for(lambda: idle(page), 60, f"the {title} page", interval=0.5, describe=why)
        page.get_by_text("Projector mode", exact=True).first.click()
        page.get_by_role("button", name=LEAVE).click()
        wait_for(lambda: idle(page), 30, "projector mode off", interval=0.5, describe=why)
        page.close()
    found = streamlit_warnings((server.cache / "server.log").read_text())
    assert not found, "\n".join(found[:10])
