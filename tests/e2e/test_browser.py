"""Real browser test: `streamlit run app.py` on a free localhost port, driven by Playwright + Debian chromium.

Starts a small probe run, watches the charts grow while it runs, switches pages and comes back to the same
run, reloads and re-attaches, downloads the run's CSV and checks its rows, and saves screenshots to
docs/screenshots/ (shown in the README).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from engine import settings

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO / "docs" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
STEPS = 1000  # ~30 ms a step at 300 items: long enough to watch the charts grow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium not installed")
    pytest.importorskip("playwright.sync_api")
    port = free_port()
    cache = tmp_path_factory.mktemp("e2e-cache")
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "EMBEDLAB_NO_SHARED_DATA": "1"}
    env.pop("EMBEDLAB_DATA_DIR", None)
    log = open(cache / "server.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
         "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            raise AssertionError(f"streamlit exited: {(cache / 'server.log').read_text()[-2000:]}")
    else:
        proc.kill()
        raise AssertionError("streamlit did not become healthy in 120 s")
    yield url, cache, proc.pid
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


def nice_of(pid: int) -> int:
    """The nice value of a process's main thread (Linux /proc: field 19 of stat)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def child_processes(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (the run's child and the warm spare)."""
    return [int(child) for task in Path(f"/proc/{pid}/task").glob("*/children") for child in task.read_text().split()]


def step_shown(page) -> int:
    """The step of the run's progress text ("step N/60"), or -1 before the first step."""
    texts = page.locator("[data-testid='stProgress']").all_inner_texts()
    found = [int(m.group(1)) for t in texts for m in [re.search(r"step (\d+)/", t)] if m]
    return max(found) if found else -1


def first_chart_curve(page) -> list[float]:
    """``[points, last x]`` of the first chart's newest curve (``[0, -1]`` before it exists): the live canvas's
    first panel while a run trains, the first Plotly chart otherwise."""
    return page.evaluate(
        "() => { const live = [...document.querySelectorAll('iframe')].map(f => { try {"
        " return f.contentWindow.embedlabPanels; } catch (e) { return null; } }).find(p => p && p.length);"
        " const g = document.querySelector('.js-plotly-plot');"
        " const d = live ? live[0].series : g ? (g._fullData || g.data || []) : [];"
        " if (!d.length) return [0, -1]; const x = d[d.length - 1].x;"
        " return x && x.length ? [x.length, x[x.length - 1]] : [0, -1]; }"
    )


def points_in_first_chart(page) -> int:
    return int(first_chart_curve(page)[0])


def last_step_in_first_chart(page) -> float:
    """The last x (step) of the first chart's newest curve: grows while the run goes, even when the live
    curve is downsampled to a fixed number of points."""
    return float(first_chart_curve(page)[1])


def wait_until(predicate, timeout: float, what: str, page=None, cache: Path | None = None) -> None:
    """Poll `predicate`; on time-out save a screenshot and put the server log's tail in the message."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    detail = ""
    if page is not None:
        shot = Path(os.environ.get("TMPDIR", "/tmp")) / "embedlab-e2e-timeout.png"
        page.screenshot(path=str(shot), full_page=True)
        body = page.locator("section.main").first.inner_text()[-1500:] if page.locator("section.main").count() else ""
        detail += f"\nscreenshot: {shot}\npage text tail:\n{body}"
    if cache is not None and (cache / "server.log").exists():
        detail += f"\nserver log tail:\n{(cache / 'server.log').read_text()[-3000:]}"
    raise AssertionError(f"timed out waiting for {what}{detail}")


def set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    page.wait_for_timeout(400)


def go(page, title: str, heading: str | None = None) -> None:
    page.get_by_role("link", name=title).first.click()
    page.get_by_role("heading", name=heading or title).first.wait_for(timeout=60_000)


def test_run_watch_switch_reload_download(server, browser, tmp_path: Path) -> None:
    url, cache, server_pid = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
    page.goto(url)
    page.get_by_text("watch sentence embeddings take shape").wait_for(timeout=90_000)
    page.screenshot(path=str(SHOTS / "overview.png"), full_page=True)

    go(page, "Isotropy vs clusters")
    set_number(page, "Steps (Adam updates)", STEPS)
    set_number(page, "Limit (items, 0 = all)", 300)
    set_number(page, "UMAP frame every k steps (0 = off)", 5)
    clicked = time.monotonic()
    page.get_by_role("button", name="▶ Start").click()

    # curves grow while the run goes
    wait_until(lambda: points_in_first_chart(page) >= 2, 120, "the first chart points", page, cache)
    first_seen = time.monotonic() - clicked
    before, step_before = last_step_in_first_chart(page), step_shown(page)
    wait_until(lambda: last_step_in_first_chart(page) > before and step_shown(page) > step_before, 60,
               "the charts to grow", page, cache)
    label = page.locator("[data-testid='stProgress']").first.inner_text().split(" — ")[0].strip()
    assert label.startswith("probe·"), label

    # training first: the server's event loop yields to the run's child (engine.priority)
    normal = os.getpriority(os.PRIO_PROCESS, 0)  # the server started with this test's priority
    children = child_processes(server_pid)
    assert children and all(nice_of(pid) == normal for pid in children), {pid: nice_of(pid) for pid in children}
    assert nice_of(server_pid) == max(normal, settings.default("ui_nice"))

    # switch pages and come back: the same run, still going or done
    go(page, "Overview", "embedlab — watch sentence embeddings take shape")
    go(page, "Isotropy vs clusters")
    page.get_by_text(label).first.wait_for(timeout=30_000)

    # reload: a new session re-attaches to the run
    page.reload()
    page.get_by_role("heading", name="Isotropy vs clusters").wait_for(timeout=90_000)
    page.get_by_text(label).first.wait_for(timeout=30_000)

    # wait for the end (the page reruns itself when the run ends), then download its CSV
    run_dirs = list((cache / "runs").glob("probe-*"))
    assert len(run_dirs) == 1
    wait_until(lambda: '"finished"' in (run_dirs[0] / "status.json").read_text(), 240, "the run to finish", page, cache)
    button = page.get_by_role("button", name=f"⬇ {label}.csv")
    button.wait_for(timeout=30_000)
    page.wait_for_timeout(2500)  # the UMAP thread writes its last frame; the page settles
    page.screenshot(path=str(SHOTS / "isotropy.png"), full_page=True)
    with page.expect_download(timeout=30_000) as info:
        page.get_by_role("button", name=f"⬇ {label}.csv").click()
    target = tmp_path / "run.csv"
    info.value.save_as(target)
    table = pd.read_csv(target)
    assert table["step"].tolist() == list(range(STEPS + 1))
    assert table["silhouette"].iloc[-1] > table["silhouette"].iloc[0]

    go(page, "Compare runs")
    page.wait_for_timeout(2000)
    page.screenshot(path=str(SHOTS / "compare.png"), full_page=True)
    go(page, "SimCSE training")
    page.wait_for_timeout(1000)
    page.screenshot(path=str(SHOTS / "simcse.png"), full_page=False)
    (tmp_path / "timing.txt").write_text(f"first chart points {first_seen:.1f} s after Start\n")
    print(f"first chart points {first_seen:.1f} s after Start")
    page.close()


def test_two_sessions_start_runs_at_once_and_both_finish_with_their_own_logs(server, browser) -> None:
    """Two browser sessions (separate contexts) press Start together: two run folders, both complete."""
    url, cache, _ = server
    steps = 40
    before = set((cache / "runs").glob("probe-*"))
    contexts = [browser.new_context(viewport={"width": 1300, "height": 900}) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.goto(f"{url}/isotropy")
        page.get_by_role("heading", name="Isotropy vs clusters").first.wait_for(timeout=90_000)
        set_number(page, "Steps (Adam updates)", steps)
        set_number(page, "Limit (items, 0 = all)", 120)
    for page in pages:
        page.get_by_role("button", name="▶ Start").click()
    wait_until(lambda: len(set((cache / "runs").glob("probe-*")) - before) == 2, 60, "two run folders", pages[0], cache)
    new = sorted(set((cache / "runs").glob("probe-*")) - before)
    wait_until(lambda: all('"finished"' in (d / "status.json").read_text() for d in new), 300,
               "both runs to finish", pages[1], cache)
    for run_dir in new:
        table = pd.read_csv(run_dir / "metrics.csv")
        assert table["step"].tolist() == list(range(steps + 1)), run_dir.name
    labels = {f"probe·{d.name[-4:]}" for d in new}
    shown = []
    for page in pages:  # each session shows the run it started in its run picker
        wait_until(lambda page=page: any(lb in page.locator("[data-testid='stMultiSelect']").first.inner_text()
                                         for lb in labels), 30, "the session's run in its picker", page, cache)
        picker = page.locator("[data-testid='stMultiSelect']").first.inner_text()
        shown.append({lb for lb in labels if lb in picker})
    assert shown[0] != shown[1] and all(len(s) == 1 for s in shown), shown
    for context in contexts:
        context.close()
