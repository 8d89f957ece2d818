"""The fixtures the browser tests share: one Streamlit server per test module (its own cache folder, named
after the module) and one chromium for it; skipped where /usr/bin/chromium or Playwright is missing."""

from __future__ import annotations

import pytest
from app_server import CHROMIUM
from browser_flow import chromium, streamlit_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium not installed")
    pytest.importorskip("playwright.sync_api")
    name = request.module.__name__.rpartition(".")[2]
    with streamlit_server(tmp_path_factory.mktemp(f"{name}-cache")) as running:
        yield running


@pytest.fixture(scope="module")
def browser(server):
    with chromium() as running:
        yield running
