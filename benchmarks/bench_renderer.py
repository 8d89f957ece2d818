"""The browser's cost of drawing the live view: a captured live description redrawn once a second.

    python benchmarks/bench_renderer.py [--data-dir ../shared/data] [--payload FILE] [--save FILE]
                                        [--rounds 3] [--seconds 20]

The live view's curves cost a 2-core machine's training some of its speed (``bench_app_throughput.py``); this
measures the drawing alone, without a run beside it, so small differences show. A payload of the live feed
(the JSON a page fetches every second: ``ui/feed.py``) is captured from the app while a probe trains (the
Isotropy page's defaults: five curves and three wide figures; ``--payload`` reuses a saved one, and
``--save`` keeps the capture), then a page (``benchmarks/web/renderer.html``, opened from ``file://`` in
headless Chromium) redraws it every second, every panel with a new version, as the live view does while a run
trains. Modes, in a random order each round, ``--seconds`` each:

- ``blank``: the same timer and JSON parse, nothing drawn: the reference;
- ``plotly``: the lab's renderer (``engine/web/charts.js`` on Plotly.js) as the live view draws, every panel;
- ``curves``: the same, the five curves only;
- ``interactive``: the five curves drawn interactive at every redraw (hover, zoom and mode bar layers), not
  static plots until the pointer enters one as the live view draws them;
- ``uplot`` (when the ``uplot-python`` package's ``uPlot.iife.js`` is installed): the same series with uPlot,
  lines, points, titles, log axes and uPlot's legend (not Plotly's colour bar, hover templates or reference
  lines): a lower bound of a uPlot renderer's cost, not a renderer.

The browser's cores are those of the benchmark's own Chromium processes (Linux /proc), medians over rounds,
each mode against ``blank`` (the cost of drawing) and against ``plotly``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benchmarks' app_driving
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the app's ui package, beside app.py

from app_driving import (  # noqa: E402
    REPO,
    app_run,
    browser_cpu_seconds,
    launch_browser,
    probe_run_parser,
)
from app_server import start_app, stop_app  # noqa: E402 - app_driving puts it on the path

from ui.feed import STATIC  # noqa: E402
from ui.live_view import plotly_source  # noqa: E402

WEB = Path(__file__).resolve().parent / "web"


def capture(args: argparse.Namespace) -> dict:
    """Start the app, train a probe from the Isotropy page with its live charts, and return the last live-feed
    payload written while it trained (the one with the most points)."""
    from playwright.sync_api import sync_playwright

    cache = Path(tempfile.mkdtemp(prefix="embedlab-renderer-"))
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    server, url = start_app(env)
    latest: dict[str, str] = {}
    done = threading.Event()

    def keep_newest() -> None:
        feed = STATIC / "live" / str(server.pid)  # the server's feed folder (ui.feed.folder, its pid)
        while not done.is_set():
            for path in feed.glob("*.json"):
                try:
                    text = path.read_text(encoding="utf-8")
                except OSError:
                    continue
                if '"description"' in text:  # a payload file, not a feed's pointer to one
                    latest["text"] = text
            time.sleep(0.25)

    watcher = threading.Thread(target=keep_newest, daemon=True)
    try:
        with sync_playwright() as pw:
            browser = launch_browser(pw, tempfile.mkdtemp(prefix="embedlab-renderer-chromium-"))
            page = browser.new_page()
            watcher.start()
            app_run(page, url, args, cache / "runs", 0, server.pid)
            browser.close()
    finally:
        done.set()
        stop_app(server)
    payload = json.loads(latest.get("text") or "null")
    if not payload or not payload["description"]["panels"]:
        raise SystemExit("no live payload with panels was captured")
    return payload


def uplot_files() -> list[Path]:
    """uPlot's script and style from the installed uplot-python package, or [] without it."""
    spec = importlib.util.find_spec("uplot")
    if spec is None or not spec.submodule_search_locations:
        return []
    static = Path(next(iter(spec.submodule_search_locations))) / "static"
    found = [static / "uPlot.iife.js", static / "uPlot.min.css"]
    return found if all(path.exists() for path in found) else []


def page_folder(payload: dict, uplot: list[Path]) -> Path:
    """A folder with the page, the renderer's files, Plotly.js, uPlot (if found) and the payload script."""
    folder = Path(tempfile.mkdtemp(prefix="embedlab-renderer-page-"))
    for path in [
        WEB / "renderer.html",
        WEB / "renderer.js",
        REPO / "engine" / "web" / "charts.js",
        REPO / "engine" / "web" / "charts.css",
        *uplot,
    ]:
        shutil.copy(path, folder / path.name)
    shutil.copy(plotly_source(), folder / "plotly.min.js")
    (folder / "payload.js").write_text("window.PAYLOAD = " + json.dumps(payload) + ";\n", encoding="utf-8")
    return folder


def measure(folder: Path, modes: list[str], args: argparse.Namespace) -> dict[str, list[float]]:
    """Browser cores per mode over ``args.rounds`` rounds (modes in a seeded random order each round)."""
    from playwright.sync_api import sync_playwright

    cores: dict[str, list[float]] = {mode: [] for mode in modes}
    order_rng = random.Random(args.seed)
    with sync_playwright() as pw:
        browser = launch_browser(pw)  # its profile: how browser_cpu_seconds finds its processes
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for round_ in range(args.rounds):
            order = list(modes)
            order_rng.shuffle(order)
            for mode in order:
                page.goto((folder / "renderer.html").as_uri() + f"?mode={mode}")
                time.sleep(3)  # the first draw (Plotly's set-up) is not the steady state
                start, used = time.monotonic(), browser_cpu_seconds()
                time.sleep(args.seconds)
                core = (browser_cpu_seconds() - used) / (time.monotonic() - start)
                draws, last = page.evaluate("() => [window.benchDraws, window.benchLastMs]")
                if errors:
                    raise SystemExit(f"the page failed in mode {mode}: {errors[0]}")
                cores[mode].append(core)
                last_ms = "—" if last is None else f"{last:.0f} ms"
                print(
                    f"round {round_ + 1} {mode:>6}: browser {core:.3f} core ({draws} draws, last {last_ms})",
                    flush=True,
                )
        browser.close()
    return cores


def main() -> None:
    parser = probe_run_parser(3000, 300, "the captured run's steps")
    parser.add_argument("--payload", help="a saved live-feed payload (JSON) instead of a capture")
    parser.add_argument("--save", help="write the captured payload here")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.payload:
        payload = json.loads(Path(args.payload).read_text(encoding="utf-8"))
    else:
        payload = capture(args)
        if args.save:
            Path(args.save).write_text(json.dumps(payload), encoding="utf-8")
    panels = payload["description"]["panels"]
    print(f"payload: {len(panels)} panels, {len(json.dumps(payload)) / 1e3:.0f} kB of JSON")
    uplot = uplot_files()
    modes = ["blank", "plotly", "curves", "interactive"] + (["uplot"] if uplot else [])
    if not uplot:
        print("uplot: not measured (pip install uplot-python to compare)")
    cores = measure(page_folder(payload, uplot), modes, args)
    print("\nmedian over rounds (min–max), and the drawing's cost (the mode less blank):")
    blank = statistics.median(cores["blank"])
    plotly = statistics.median(cores["plotly"]) - blank
    for mode, found in cores.items():
        line = f"  {mode:>6}: {statistics.median(found):.3f} core ({min(found):.3f}–{max(found):.3f})"
        if mode != "blank":
            drawing = statistics.median(found) - blank
            line += f"; drawing {drawing:.3f} core"
            if mode != "plotly" and plotly > 0:
                line += f", {drawing / plotly:.0%} of plotly's"
        print(line)


if __name__ == "__main__":
    main()
