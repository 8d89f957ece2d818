"""What open tabs cost: page-load time with 1 and with 10 tabs watching one live run, and its training rate.

    python benchmarks/bench_tabs.py [--data-dir ../shared/data] [--limit 2000] [--loads 6] [--tabs 10]

One cache folder, one Streamlit server (``streamlit run app.py``), one real browser (Playwright +
/usr/bin/chromium, driven with ``app_driving.py``). The first tab starts one probe run on the
Isotropy page (rt-polarity, ``--limit`` items, more steps than the measurement lasts, no UMAP frames), then:

- ``1 tab``: that tab alone watches the run; another tab loads the Isotropy page ``--loads`` times (each a new
  browser session, closed after its load);
- ``N tabs``: ``--tabs`` - 1 tabs watch the run (each loaded once and left open), and the same loads again.

A page load = from the navigation to the page until its title and the run's curve in its first chart are
drawn. The training rate of a condition = the steps added to the run's ``metrics.csv`` during it / its wall
time; beside it the cores used by the web server's own process (the training child apart) and by the
benchmark's chromium (Linux /proc). Printed: the median (min-max) load of each condition, the rates, and the
ratios N-tab/1-tab. At the end the server is ended, and the run's child with it. The machine is shared: the
load average is printed beside each condition.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / part) for part in ("benchmarks", "tests/e2e")]

from app_driving import (  # noqa: E402
    CHART_CURVE,
    REPO,
    browser_cpu_seconds,
    fill_isotropy_page,
    launch_browser,
    probe_run_parser,
    process_cpu_seconds,
)
from app_server import start_app, stop_app  # noqa: E402

TITLE = "Isotropy vs clusters"


def last_step(run_dir: Path) -> int | None:
    """The step of the last complete row of the run's ``metrics.csv`` (None before the first)."""
    try:
        data = (run_dir / "metrics.csv").read_bytes()
    except OSError:
        return None
    lines = data[: data.rfind(b"\n")].split(b"\n")
    if len(lines) < 2:
        return None
    header = lines[0].decode().split(",")
    return int(float(lines[-1].decode().split(",")[header.index("step")]))


def label_of(run_dir: Path) -> str:
    """The run's label in the charts (:func:`ui.run_facts.run_label`: its name, the only run of its name)."""
    from engine.runlog import run_name

    return run_name(run_dir)


def load(page, url: str, label: str) -> float:
    """Seconds from the navigation to the Isotropy page until its title and the run's curve are drawn."""
    started = time.monotonic()
    page.goto(f"{url}/isotropy")
    page.get_by_role("heading", name=TITLE).wait_for(timeout=120_000)
    page.wait_for_function(f"() => ({CHART_CURVE})({label!r})[0] > 0", timeout=120_000, polling=50)
    return time.monotonic() - started


def start_run(page, url: str, args: argparse.Namespace, runs: Path) -> Path:
    """Start the probe run from the Isotropy page; returns its folder once its first row is written."""
    fill_isotropy_page(page, url, args, 0)
    before = set(runs.glob("probe-*"))
    page.get_by_role("button", name=re.compile(r"Start$")).click()
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        new = set(runs.glob("probe-*")) - before
        if new and last_step(next(iter(new))) is not None:
            return next(iter(new))
        time.sleep(0.5)
    raise SystemExit("the probe run wrote no row in 10 minutes")


def condition(browser, url: str, run_dir: Path, loads: int, server_pid: int) -> dict:
    """``loads`` page loads, each in a new tab closed after it; the run's steps/s meanwhile, and the cores
    used by the web server's own process (its training child apart) and by the benchmark's chromium."""
    label = label_of(run_dir)
    step0, time0 = last_step(run_dir), time.monotonic()
    server0, browser0 = process_cpu_seconds(server_pid), browser_cpu_seconds()
    times = []
    for _ in range(loads):
        page = browser.new_page()
        times.append(load(page, url, label))
        page.close()
        time.sleep(1.0)  # a user reads the page a moment
    wall = time.monotonic() - time0
    return {
        "loads": times,
        "rate": (last_step(run_dir) - step0) / wall,
        "server": (process_cpu_seconds(server_pid) - server0) / wall,
        "browser": (browser_cpu_seconds() - browser0) / wall,
        "load_avg": os.getloadavg()[0],
    }


def line(name: str, found: dict) -> str:
    loads = found["loads"]
    return (
        f"{name:>8}: page load median {statistics.median(loads):.2f} s "
        f"({min(loads):.2f}-{max(loads):.2f}, {len(loads)} loads); training {found['rate']:.2f} steps/s; "
        f"server {found['server']:.2f} core, browser {found['browser']:.2f} core "
        f"(load average {found['load_avg']:.1f})"
    )


def main() -> None:
    parser = probe_run_parser(2000, 100_000, "more than the measurement lasts")
    parser.add_argument("--loads", type=int, default=6, help="page loads measured per condition")
    parser.add_argument("--tabs", type=int, default=10, help="tabs watching the run in the second condition")
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="embedlab-bench-tabs-"))
    runs = cache / "runs"
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    print(
        f"cache {cache}; app {REPO}; probe rt-polarity limit {args.limit}; {args.loads} loads per condition; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )

    from playwright.sync_api import sync_playwright

    proc, url = start_app(env)
    try:
        with sync_playwright() as pw:
            browser = launch_browser(pw)
            first = browser.new_page()
            run_dir = start_run(first, url, args, runs)
            print(f"run {run_dir.name} training", flush=True)
            load(first, url, label_of(run_dir))  # the starting tab watches it (a new session, as a user's)
            one = condition(browser, url, run_dir, args.loads, proc.pid)
            print(line("1 tab", one), flush=True)
            watchers = []
            for _ in range(args.tabs - 1):
                watchers.append(browser.new_page())
                load(watchers[-1], url, label_of(run_dir))
            many = condition(browser, url, run_dir, args.loads, proc.pid)
            print(line(f"{args.tabs} tabs", many), flush=True)
            ratio = statistics.median(many["loads"]) / statistics.median(one["loads"])
            print(
                f"ratio {args.tabs}-tab/1-tab: page load {ratio:.2f}x, training rate "
                f"{many['rate'] / one['rate']:.2f}x",
                flush=True,
            )
            for page in watchers:
                page.close()
            browser.close()
    finally:
        stop_app(proc)
        end_children(cache)


def end_children(cache: Path) -> None:
    """SIGTERM what is left of the server's training children (their command line names the cache)."""
    marker = str(cache).encode()
    for found in Path("/proc").iterdir():
        if found.name.isdigit() and int(found.name) != os.getpid():
            with contextlib.suppress(OSError):
                if marker in (found / "cmdline").read_bytes():
                    os.kill(int(found.name), signal.SIGTERM)


if __name__ == "__main__":
    main()
