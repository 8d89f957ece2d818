"""One real-browser test per experiment page, then Compare with a run of every kind: a short run started from
each page (its ``smoke`` settings typed into the page's number fields, the rest the page's defaults), watched
until its first rows are drawn, with no exception box, no error alert, no console error and no traceback or
Streamlit warning in the server log.

The experiments come from :data:`engine.experiments.EXPERIMENTS`: a page added later is covered with no
edit here. Screenshots: ``test-artifacts/screenshots/page-<kind>.png`` and ``page-compare-all.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_flow import SHOTS, START, explain, idle, open_overview, set_number
from waiting import wait_for

from engine import runlog
from engine.experiments import EXPERIMENTS
from ui import fields
from ui.navigation import PAGES

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

KINDS = [kind for kind, experiment in EXPERIMENTS.items() if experiment.section is not None]
TITLE = {script: title for script, title, _ in PAGES}
#: what a page shows when something broke: Streamlit's exception box and error alerts
BROKEN = "[data-testid='stException'], [data-testid='stAlertContentError']"


class Watched:
    """A browser page with its console errors and uncaught exceptions recorded."""

    def __init__(self, browser, server):
        self.page = browser.new_page(viewport={"width": 1500, "height": 1000})
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))
        self.why = explain(self.page, server)

    def _console(self, message) -> None:
        if message.type == "error":
            where = (message.location or {}).get("url", "")
            self.problems.append(f"console error: {message.text} ({where})")

    def open(self, server, script: str) -> None:
        open_overview(self.page, server, self.why)
        self.page.get_by_role("link", name=TITLE[script]).first.click()
        self.page.get_by_role("heading", name=TITLE[script]).first.wait_for(timeout=90_000)
        wait_for(lambda: idle(self.page), 60, f"{script} to settle", describe=self.why)

    def assert_clean(self, server) -> None:
        broken = self.page.locator(BROKEN)
        shown = broken.all_inner_texts() if broken.count() else []
        assert not shown, f"the page shows an error: {shown}\n{self.why()}"
        assert not self.problems, self.problems
        log = (server.cache / "server.log").read_text()
        assert "Traceback" not in log, server.log_tail(4000)


def smoke_numbers(kind: str) -> dict[str, int]:
    """The experiment's smoke settings that its page draws as number fields, by their labels."""
    found = {}
    for name, value in EXPERIMENTS[kind].smoke.items():
        try:
            spec = fields.spec(EXPERIMENTS[kind], name)
        except KeyError:  # a page choice, or not a field of the page
            continue
        if spec.widget == "number" and isinstance(value, int) and not isinstance(value, bool):
            found[spec.label] = value
    return found


def rows_of(run_dir: Path) -> int:
    try:
        return max(0, len((run_dir / runlog.METRICS).read_text().splitlines()) - 1)
    except OSError:
        return 0


@pytest.mark.parametrize("kind", KINDS)
def test_an_experiment_page_starts_a_run_and_draws_it(kind: str, server, browser) -> None:
    watched = Watched(browser, server)
    page, script = watched.page, EXPERIMENTS[kind].section.page
    watched.open(server, script)
    for label, value in smoke_numbers(kind).items():
        set_number(page, label, value, describe=watched.why, timeout=90)
    runs = server.cache / "runs"
    before = set(runs.glob("*")) if runs.exists() else set()
    page.get_by_role("button", name=START).click()
    wait_for(
        lambda: runs.exists() and len(set(runs.glob("*")) - before) == 1,
        60,
        "the run's folder",
        describe=watched.why,
    )
    (run_dir,) = set(runs.glob("*")) - before
    wait_for(lambda: rows_of(run_dir) >= 1, 400, f"the {kind} run's first rows", describe=watched.why)
    wait_for(
        lambda: page.locator(".js-plotly-plot").count() > 0,
        60,
        "the run's charts",
        describe=watched.why,
    )
    wait_for(lambda: idle(page), 60, "the page to settle", describe=watched.why)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"page-{kind}.png"), full_page=True)
    watched.assert_clean(server)
    wait_for(
        lambda: runlog.read_json(run_dir / runlog.STATUS).get("state") != "running", 400, "the run's end"
    )
    page.close()


def test_compare_shows_runs_of_every_kind(server, browser) -> None:
    """After the tests above: Compare with the run of every experiment picked draws them side by side."""
    watched = Watched(browser, server)
    page = watched.page
    watched.open(server, "views/compare.py")
    picker = page.locator("[data-testid='stMultiSelect']").filter(has=page.get_by_text("Runs to compare"))
    names = [runlog.run_name(folder) for folder in sorted((server.cache / "runs").glob("*"))]
    assert len(names) >= len(KINDS), names
    for name in names:
        if name in picker.inner_text():
            continue
        picker.locator("input").click()
        page.get_by_role("option").filter(has_text=name).first.click()
        page.keyboard.press("Escape")
        wait_for(lambda name=name: name in picker.inner_text() and idle(page), 60, f"{name} picked")
    wait_for(
        lambda: page.locator(".js-plotly-plot").count() > 0, 60, "Compare's charts", describe=watched.why
    )
    kinds = {
        runlog.read_json(folder / runlog.CONFIG).get("kind") for folder in (server.cache / "runs").glob("*")
    }
    assert kinds == set(KINDS), kinds
    page.screenshot(path=str(SHOTS / "page-compare-all.png"), full_page=True)
    watched.assert_clean(server)
    page.close()
