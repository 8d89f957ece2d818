"""Driving the app in a real browser, shared by the app's benchmarks (``bench_app_throughput.py``,
``bench_tabs.py``, ``bench_renderer.py``).

Importing it puts this checkout (its engine and app) and tests/e2e (``app_server``, the one Streamlit
launcher, and ``probe_js``, the chart probes) on ``sys.path``. It holds the headless chromium of the
benchmarks (:func:`launch_browser`, its own profile folder :data:`PROFILE`) and the CPU accounting of Linux
/proc (:func:`process_cpu_seconds`, :func:`browser_cpu_seconds`, :func:`children_quiet`); the Isotropy
page's probe run set from the flags of :func:`probe_run_parser` (:func:`fill_isotropy_page`,
:func:`app_run`), followed until it ends (:func:`watch_run`, :func:`blank_run`); and what a run's folder
tells (:func:`run_name`, :func:`has_row`, :func:`rate`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

# this checkout's engine, and the app's one launcher (shared with the browser tests)
sys.path[:0] = [str(Path(__file__).resolve().parents[1] / part) for part in ("", "tests/e2e")]
from app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _probe_js():
    """The browser test's chart probe (tests/e2e/probe_js.py), loaded by its path: one copy for both."""
    spec = importlib.util.spec_from_file_location("probe_js", REPO / "tests" / "e2e" / "probe_js.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHART_CURVE = _probe_js().CHART_CURVE  # [points, last x] of the named run's curve in the first chart
# In the page, every 0.2 s: note the time when the named run's curve has a new last step. The run is not
# watched over the DevTools protocol: 5 round trips a second cost this script and Playwright's driver
# ~0.012 core besides the renderer's share (measured 2026-11-23), which a user's browser does not pay;
# the times are read once, at the end.
RECORD_CHANGES = (
    "(name) => { const curve = " + CHART_CURVE + "; let last = null; window.benchChanges = [];"
    " clearInterval(window.benchRecorder);"
    " window.benchRecorder = setInterval(() => { const x = curve(name)[1];"
    " if (x !== last) { last = x; window.benchChanges.push(performance.now()); } }, 200); }"
)


def rate(run_dir: Path) -> float:
    """The run's training rate: logged steps per second of its ``seconds`` column (set-up excluded)."""
    metrics = pd.read_csv(run_dir / "metrics.csv")
    return (metrics["step"].iloc[-1] - metrics["step"].iloc[0]) / (
        metrics["seconds"].iloc[-1] - metrics["seconds"].iloc[0]
    )


def has_row(run_dir: Path) -> bool:
    """Whether the run's ``metrics.csv`` holds a first complete row."""
    path = run_dir / "metrics.csv"
    return path.exists() and path.read_bytes().count(b"\n") >= 2


def children_quiet(server: subprocess.Popen, runs: Path, settle: float = 4.0, limit: float = 180.0) -> None:
    """Wait until, for ``settle`` s, no UMAP frame appeared and the server and its children used < 0.1
    core."""
    deadline = time.monotonic() + limit
    since = time.monotonic()
    frames, cpu = -1, _tree_cpu_seconds(server.pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now_frames, now_cpu = sum(1 for _ in runs.glob("*/frames/step_*.csv")), _tree_cpu_seconds(server.pid)
        if now_frames != frames:
            frames, cpu, since = now_frames, now_cpu, time.monotonic()
        elif time.monotonic() - since >= settle:
            if now_cpu - cpu < 0.1 * settle:
                return
            cpu, since = now_cpu, time.monotonic()


def _tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its children (Linux /proc), to see when they are idle."""
    pids = [pid]
    for children in Path(f"/proc/{pid}/task").glob("*/children"):  # children of every thread
        try:
            pids += [int(p) for p in children.read_text().split()]
        except OSError:
            continue
    return sum(process_cpu_seconds(each) for each in pids)


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by the process ``pid`` itself (all its threads), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


#: the benchmark's own chromium profile folder: every process of its browser names it on its command line
PROFILE = tempfile.mkdtemp(prefix="embedlab-bench-chromium-")


def browser_cpu_seconds() -> float:
    """CPU seconds used so far by the benchmark's own chromium processes (renderers, GPU/compositing,
    browser; found by their profile folder: other browsers on a shared machine are not counted)."""
    total = 0.0
    marker = PROFILE.encode()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if marker in (proc / "cmdline").read_bytes():
                    total += process_cpu_seconds(int(proc.name))
    return total


def launch_browser(pw, profile: str = PROFILE):
    """Headless Debian chromium (Playwright ``pw``) with the benchmarks' flags and window, on ``profile``: a
    profile folder by which :func:`browser_cpu_seconds` finds the browser's processes (the default)."""
    return pw.chromium.launch_persistent_context(
        profile,
        executable_path=str(CHROMIUM),
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": 1500, "height": 1000},
    )


def run_name(run_dir: Path) -> str | None:
    """The run's name from its config.json (None until the file is written)."""
    try:
        return json.loads((run_dir / "config.json").read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError):
        return None


def watch_run(
    page,
    runs: Path,
    before: set[Path],
    clicked: float,
    pattern: str,
    server_pid: int | None = None,
    drawn_within: float = 0.0,
) -> dict:
    """Follow the run started at ``clicked`` until it finishes: first chart point (one point drawn) and first
    curve (two or more), each with the run's newest step on screen then, first row, first frame, and from the
    first row to the end, the cores used by the browser and by the web server's own process (its children,
    the training, apart). ``drawn_within``: after the run ended, go on watching the page for at most this
    many seconds until its first curve is drawn (a paced run, the demo, trains in about a second and is
    drawn, played, afterwards)."""
    first_point = first_point_step = first_points = first_row = first_frame = first_step = None
    usage_start = usage = ended = None
    run_dir = None
    changes: list[float] = []  # when the first chart's curve grew (ms): the live refresh interval
    while True:
        if run_dir is None:
            new = set(runs.glob(pattern)) - before
            run_dir = next(iter(new), None)
        now = time.monotonic() - clicked
        if first_points is None and run_dir is not None:
            label = run_name(run_dir)  # the legend's name (ui.run_facts.run_label): unique in this cache
            drawn = page.evaluate(CHART_CURVE, label) if label is not None else [0, -1]
            if first_point is None and drawn[0] >= 1:
                first_point, first_point_step = now, drawn[1]  # the newest step on screen then
            if drawn[0] > 1:
                first_points, first_step = now, drawn[1]
                page.evaluate(RECORD_CHANGES, label)  # from here on the page notes the refreshes itself
        if run_dir is not None and ended is None:
            if first_row is None and has_row(run_dir):
                first_row = now
                usage_start = (
                    time.monotonic(),
                    browser_cpu_seconds(),
                    process_cpu_seconds(server_pid) if server_pid else 0.0,
                )
            if first_frame is None and next((run_dir / "frames").glob("step_*.csv"), None):
                first_frame = now
            status = run_dir / "status.json"
            if status.exists() and any(
                f'"{s}"' in status.read_text() for s in ("finished", "failed", "stopped")
            ):
                ended, usage = now, usage_between(usage_start, server_pid)
        if ended is not None and (first_points is not None or now - ended > drawn_within):
            break
        if now > 1800:
            raise SystemExit("the app run did not finish in 30 minutes")
        time.sleep(0.2)
    if first_points is not None:
        changes = page.evaluate(
            "() => { clearInterval(window.benchRecorder); return window.benchChanges || []; }"
        )
    gaps = [(b - a) / 1000 for a, b in zip(changes, changes[1:], strict=False)]
    return {
        "rate": rate(run_dir),
        "first_point": first_point,
        "first_point_step": first_point_step,
        "first_points": first_points,
        "first_step": first_step,
        "first_row": first_row,
        "first_frame": first_frame,
        "refresh": statistics.median(gaps) if gaps else None,
        "browser": usage[0],
        "server": usage[1],
    }


def usage_between(start: tuple[float, float, float] | None, server_pid: int | None) -> tuple:
    """``(browser, server)``: the cores the browser and the web server's own process used since ``start``
    (when, browser seconds, server seconds; None: not started), or None each where under a second passed."""
    if start is None or time.monotonic() - start[0] <= 1:
        return None, None
    wall = time.monotonic() - start[0]
    browser = (browser_cpu_seconds() - start[1]) / wall
    server = (process_cpu_seconds(server_pid) - start[2]) / wall if server_pid else None
    return browser, server


def app_run(
    page,
    url: str,
    args: argparse.Namespace,
    runs: Path,
    snapshot_every: int,
    server_pid: int,
    blank: bool = False,
) -> dict:
    """Start the benchmark's probe from the Isotropy page (:func:`fill_isotropy_page`) under a new run name
    and follow it to its end: :func:`watch_run`'s findings, or with ``blank`` :func:`blank_run`'s."""
    fill_isotropy_page(page, url, args, snapshot_every)
    name = page.get_by_label("Run name", exact=True)  # a name no earlier round used: the legend's label
    name.fill(f"bench {time.monotonic_ns() % 10**9}")
    name.press("Enter")
    page.wait_for_timeout(500)
    before = set(runs.glob("bench-*"))
    clicked = time.monotonic()
    page.get_by_role("button", name=re.compile(r"Start$")).click()
    if blank:
        return blank_run(page, runs, before)
    return watch_run(page, runs, before, clicked, "bench-*", server_pid)


def fill_isotropy_page(page, url: str, args: argparse.Namespace, snapshot_every: int) -> None:
    """Open the Isotropy page and set the benchmark's probe: rt-polarity from ``args.data_dir``, its
    ``--limit`` and ``--steps``, a UMAP frame every ``snapshot_every`` steps (0: none)."""
    page.goto(f"{url}/isotropy")
    page.get_by_role("heading", name="Isotropy vs clusters").wait_for(timeout=120_000)
    page.get_by_label("Data", exact=True).click()
    page.get_by_role("option", name="rt-polarity").click()
    for label, value in [
        ("Data folder (real data sets)", args.data_dir),
        ("Limit (items, 0 = all)", args.limit),
        ("Steps (Adam updates)", args.steps),
        ("UMAP frame every k steps (0 = off)", snapshot_every),
    ]:
        box = page.get_by_label(label, exact=True)
        box.fill(str(value))
        box.press("Enter")
        page.wait_for_timeout(500)


def blank_run(page, runs: Path, before: set[Path]) -> dict:
    """Once the run's folder exists, send the browser to about:blank and wait for the run's end: its rate
    with the app's server and training child, without the browser drawing."""
    deadline = time.monotonic() + 1800
    while not (new := set(runs.glob("bench-*")) - before):
        if time.monotonic() > deadline:
            raise SystemExit("the app run did not start in 30 minutes")
        time.sleep(0.1)
    run_dir = next(iter(new))
    page.goto("about:blank")
    while not any(
        f'"{state}"' in (run_dir / "status.json").read_text()
        for state in ("finished", "failed", "stopped")
        if (run_dir / "status.json").exists()
    ):
        if time.monotonic() > deadline:
            raise SystemExit("the app run did not finish in 30 minutes")
        time.sleep(0.2)
    unseen = ("first_point", "first_point_step", "first_points", "first_step", "first_row", "first_frame")
    unseen += ("refresh", "browser", "server")
    return {"rate": rate(run_dir), **dict.fromkeys(unseen)}


def probe_run_parser(limit: int, steps: int, steps_help: str) -> argparse.ArgumentParser:
    """The flags of a benchmark that trains a probe on rt-polarity in the app: the data folder, the
    stratified subset (``--limit``) and the run's steps."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, default=limit)
    parser.add_argument("--steps", type=int, default=steps, help=steps_help)
    return parser
