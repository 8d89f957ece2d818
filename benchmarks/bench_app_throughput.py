"""Training throughput in the app vs the CLI, and the time from a click to moving curves.

    python benchmarks/bench_app_throughput.py [--data-dir ../shared/data] [--limit 3000] [--steps 80]

Runs the same probe (rt-polarity, a stratified subset, metrics every step) three times with one cache
folder (so the sentence encodings are cached after the first run):
1. the CLI: ``python -m engine probe ...``;
2. the app in a real browser (Playwright + /usr/bin/chromium), live charts refreshed every second;
3. the same with a UMAP frame every 10 steps (the default interval).
Throughput = logged steps / the run's ``seconds`` column (training loop time, set-up excluded).
Also reports the seconds from clicking Start to the first chart points and to the first UMAP frame.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def rate(run_dir: Path) -> float:
    metrics = pd.read_csv(run_dir / "metrics.csv")
    return (metrics["step"].iloc[-1] - metrics["step"].iloc[0]) / (metrics["seconds"].iloc[-1] - metrics["seconds"].iloc[0])


def cli_run(env: dict, args: argparse.Namespace, out: Path) -> float:
    command = [sys.executable, "-m", "engine", "probe", "--data", "rt-polarity", "--data-dir", args.data_dir,
               "--limit", str(args.limit), "--steps", str(args.steps), "--metric-every", "1", "--out", str(out)]
    subprocess.run(command, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return rate(out)


def start_server(env: dict) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
         "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("server did not start")


def app_run(page, url: str, args: argparse.Namespace, runs: Path, snapshot_every: int) -> tuple[float, float, float | None]:
    page.goto(f"{url}/isotropy")
    page.get_by_role("heading", name="Isotropy vs clusters").wait_for(timeout=120_000)
    page.get_by_label("Data", exact=True).click()
    page.get_by_role("option", name="rt-polarity").click()
    for label, value in [("Data folder (real data sets)", args.data_dir), ("Limit (items, 0 = all)", args.limit),
                         ("Steps (Adam updates)", args.steps), ("UMAP frame every k steps (0 = off)", snapshot_every)]:
        box = page.get_by_label(label, exact=True)
        box.fill(str(value))
        box.press("Enter")
        page.wait_for_timeout(500)
    before = set(runs.glob("probe-*"))
    clicked = time.monotonic()
    page.get_by_role("button", name="▶ Start").click()
    first_points = first_frame = None
    while True:
        new = set(runs.glob("probe-*")) - before
        if first_points is None and page.evaluate(
            "() => { const g = document.querySelector('.js-plotly-plot'); if (!g) return false;"
            " const d = g._fullData || []; return d.length > 0 && d[0].x && d[0].x.length > 1; }"
        ):
            first_points = time.monotonic() - clicked
        if first_frame is None and new and any(next((d / "frames").glob("step_*.csv"), None) for d in new):
            first_frame = time.monotonic() - clicked
        status = next(iter(new)) / "status.json" if new else None
        if status is not None and status.exists() and '"finished"' in status.read_text():
            break
        time.sleep(0.25)
    return rate(next(iter(new))), first_points, first_frame


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, default=3000)
    parser.add_argument("--steps", type=int, default=80)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="embedlab-bench-"))
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    cli_run(env, args, cache / "warm-cli")  # fills the embedding cache
    cli = cli_run(env, args, cache / "cli")
    print(f"CLI: {cli:.2f} steps/s", flush=True)

    from playwright.sync_api import sync_playwright

    proc, url = start_server(env)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(url)
            page.wait_for_timeout(20_000)  # let the UMAP JIT warm-up of app start finish
            charts, first_points, _ = app_run(page, url, args, cache / "runs", 0)
            print(f"app, live charts: {charts:.2f} steps/s = {charts / cli:.0%} of CLI; "
                  f"first curve points {first_points:.1f} s after Start", flush=True)
            umap, first_points, first_frame = app_run(page, url, args, cache / "runs", 10)
            frame = "none" if first_frame is None else f"{first_frame:.1f} s"
            print(f"app, charts + UMAP every 10 steps: {umap:.2f} steps/s = {umap / cli:.0%} of CLI; "
                  f"first curve points {first_points:.1f} s, first UMAP frame {frame} after Start", flush=True)
            cli_again = cli_run(env, args, cache / "cli2")
            print(f"CLI again: {cli_again:.2f} steps/s (load drift check)")
            browser.close()
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
