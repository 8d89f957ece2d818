"""A run named with Markdown and HTML, in a real browser (issue 55, item 4): on e23a065 opening Compare or the
run's page made chromium fetch the name's image and show its link ("Session expired - log in") in a warning
box. Here both pages draw the name as text: no <a> or <img> from it, and no request to its URLs (all on
127.0.0.1, a port nothing listens on)."""

from __future__ import annotations

import numpy as np
import pytest
from browser_flow import chromium, explain, idle, streamlit_server
from waiting import wait_for

from engine import runlog

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

HOST = "127.0.0.1:8634"
NAME = f"![b](http://{HOST}/x.png) [Session expired - log in](http://{HOST}/l)"


def _run(folder, name: str) -> str:
    """A finished probe run of 3 items in 8 dimensions (its IsoScore note names it), named ``name``."""
    config = {"kind": "probe", "data": "demo", "steps": 3, "snapshot_every": 1, "limit": None, "name": name}
    rows = [{"step": s, "loss": 1 / (s + 1), "isoscore": 0.5, "silhouette": 0.1 * s} for s in range(4)]
    writer = runlog.RunWriter(folder, list(rows[0]), config)
    writer.save_points(["a", "b", "c"], ["x", "y", "x"])
    for row in rows:
        writer.save_snapshot(row["step"], np.random.default_rng(row["step"]).normal(size=(3, 8)))
        writer.append(row)
    writer.finish("finished", {})
    return folder.name


def test_a_runs_markdown_name_is_text_on_compare_and_its_page(tmp_path) -> None:
    from app_server import CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium not installed")
    pytest.importorskip("playwright.sync_api")
    cache = tmp_path / "cache"
    run_id = _run(cache / "runs" / "evil-name", NAME)
    with streamlit_server(cache) as server, chromium() as browser:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url) if HOST in request.url else None)
        for path in (f"/compare?runs={run_id}", f"/isotropy?runs={run_id}"):
            page.goto(server.url + path)
            page.get_by_text("Session expired - log in").first.wait_for(timeout=90_000)
            wait_for(lambda: idle(page), 60, "the page's script run", describe=explain(page, server))
            page.wait_for_timeout(1500)
            assert page.get_by_text(f"![b](http://{HOST}/x.png)").count() >= 1, path  # shown as typed
            assert page.locator(f"a[href*='{HOST}']").count() == 0, path
            assert page.locator(f"img[src*='{HOST}']").count() == 0, path
        page.close()
    assert asked == []
