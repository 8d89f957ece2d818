"""Real browser test: `streamlit run app.py` on a free localhost port, driven by Playwright + Debian chromium.

The flow (browser_flow.py, shared with scripts/refresh_screenshots.py) starts a small probe run, watches the
charts grow while it runs, switches pages and comes back to the same run, reloads and re-attaches, downloads
the run's CSV and checks its rows. Its screenshots go to test-artifacts/screenshots/ (ignored by git); the
tracked docs/screenshots/ change only through scripts/refresh_screenshots.py.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from browser_flow import (
    SHOTS,
    START,
    TITLES,
    explain,
    finished,
    projector_mode,
    run_watch_switch_reload_download,
    set_number,
    sidebar_pages,
    streamlit_warnings,
)
from waiting import wait_for

from engine import runlog

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_a_page_opened_first_after_a_start_lists_the_apps_pages(server, browser) -> None:
    """The module's first request: Streamlit's first run may list every script of pages/ (and app.py) until
    the app's navigation is declared; the sidebar shows the app's six titled pages and nothing else."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(f"{server.url}/compare")
    page.get_by_role("heading", name="Compare runs").first.wait_for(timeout=90_000)
    wait_for(
        lambda: sidebar_pages(page) == TITLES,
        30,
        f"the sidebar to list {TITLES}",
        describe=lambda: f"sidebar: {sidebar_pages(page)}\n{explain(page, server)()}",
    )
    page.close()


def test_run_watch_switch_reload_download(server, browser, tmp_path: Path) -> None:
    run_watch_switch_reload_download(browser, server, SHOTS, tmp_path)


def test_projector_mode_hides_the_chrome_and_enlarges_the_charts(server, browser) -> None:
    """After the run above: projector mode hides the sidebar and the header, shows two large figures (the
    curve and the film); its screenshot is test-artifacts/screenshots/projector.png."""
    measured = projector_mode(browser, server, SHOTS)
    assert measured["sidebar_hidden"] and measured["header_hidden"], measured
    assert measured["charts"] == 2 and measured["font"] >= 18, measured
    assert measured["leave_overlaps"] == 0, measured  # the button beside the title, not over the run picker
    assert (SHOTS / "projector.png").stat().st_size > 10_000


def test_two_sessions_start_runs_at_once_and_both_finish_with_their_own_logs(server, browser) -> None:
    """Two browser sessions (separate contexts) press Start together: two run folders, both complete."""
    runs = server.cache / "runs"
    steps = 40
    before = set(runs.glob("probe-*"))
    contexts = [browser.new_context(viewport={"width": 1300, "height": 900}) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.goto(f"{server.url}/isotropy")
        page.get_by_role("heading", name="Isotropy vs clusters").first.wait_for(timeout=90_000)
        set_number(page, "Steps (Adam updates)", steps)
        set_number(page, "Limit (items, 0 = all)", 120)
    for page in pages:
        page.get_by_role("button", name=START).click()
    wait_for(
        lambda: len(set(runs.glob("probe-*")) - before) == 2,
        60,
        "two run folders",
        interval=0.5,
        describe=explain(pages[0], server),
    )
    new = sorted(set(runs.glob("probe-*")) - before)
    wait_for(
        lambda: all(finished(d) for d in new),
        300,
        "both runs to finish",
        interval=0.5,
        describe=explain(pages[1], server),
    )
    for run_dir in new:
        table = pd.read_csv(run_dir / "metrics.csv")
        assert table["step"].tolist() == list(range(steps + 1)), run_dir.name
    labels = {runlog.run_name(d) for d in new}  # each run by its name (engine.runlog.naming)
    shown = []
    for page in pages:  # each session shows the run it started in its run picker
        wait_for(
            lambda page=page: any(
                lb in page.locator("[data-testid='stMultiSelect']").first.inner_text() for lb in labels
            ),
            30,
            "the session's run in its picker",
            interval=0.5,
            describe=explain(page, server),
        )
        picker = page.locator("[data-testid='stMultiSelect']").first
        tags = picker.locator("[data-testid='stMultiSelectTagsContainer'] > *").all_inner_texts()
        shown.append([tag for tag in tags if tag.strip()])  # the container also holds the text box
    # one run each; the same settings give the same name, the second run's label carries "(2)"
    assert all(len(tags) == 1 for tags in shown), shown
    assert ("(2)" in shown[0][0]) != ("(2)" in shown[1][0]), shown
    for context in contexts:
        context.close()


def test_the_server_logged_no_streamlit_warning(server) -> None:
    """Last of the module: nothing the flows above did made Streamlit warn (tests/e2e/test_server_log.py
    clicks the demo and the presets)."""
    found = streamlit_warnings((server.cache / "server.log").read_text())
    assert not found, "\n".join(found[:10])
