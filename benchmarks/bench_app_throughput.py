"""Training throughput in the app vs the CLI, and the time from a click to moving curves.

    python benchmarks/bench_app_throughput.py [--data-dir ../shared/data] [--limit 3000] [--steps 300]
                                              [--trials 3] [--umap-every 10] [--seed 0] [--no-demo]
                                              [--job-threads N] [--blank] [--skip-umap]

One cache folder, one Streamlit server (real browser: Playwright + /usr/bin/chromium), then:

0. (unless --no-demo) a new user's first click: on a fresh server, the Overview's "Start the demo" button;
   seconds to the first chart point (one point drawn) and the first curve (two or more), each with the
   demo's step then (the player holds the first row until the browser has drawn it, so both should be
   within the first steps; the demo trains in about a second, so the page is watched after the run ended,
   at most 60 s, until its curve is drawn), the first metrics row on disk and the first UMAP frame (also
   when the film is back-filled after the run ends), from a fresh cache folder;
1. ``--trials`` rounds of three conditions in a seeded random order per round, the same probe each time
   (rt-polarity, a stratified subset, metrics every step):
   - ``cli``: ``python -m engine probe ...`` (torch's default threads);
   - ``cli_same``: the same with ``--threads N``, N = the threads the app gives its training child
     (:func:`engine.jobs.default_child_threads` of the probe; skipped where that is torch's default): the
     app's own overhead, apart from its choice of threads;
   - ``charts``: the app with live charts (refreshed every second), no snapshots;
   - ``umap`` (unless ``--skip-umap``): the same with a UMAP frame every ``--umap-every`` steps (the page's
     default, 10);
   - ``blank`` (with ``--blank``): the app's run with live charts, the browser sent to about:blank once it
     starts: the app's cost without the browser's drawing (the training child, the web server).
Throughput = logged steps / the run's ``seconds`` column (the training loop; set-up excluded); "chart refresh"
= the median time between two updates of the first chart's curve seen in the browser; "browser" and "server" =
the cores used by the benchmark's own chromium (its profile folder; other browsers on the machine are not
counted) and by the web server's own process (training children apart) from the first row to the end of an app
run (Linux /proc). Ratios app/CLI are taken within each round (same load) and reported as medians over the
rounds, besides the median rates. Before the rounds the app's first page is loaded (which starts the warm
spare and the UMAP JIT warm-up), and after each app run the script waits until the server is quiet (UMAP film
back-filled, the warm spare process started), so that no condition pays for the server's start or for the one
before. The machine is shared: read the spread, not only the median.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

# app_driving, imported first, puts this checkout's engine and tests/e2e (app_server) on sys.path
from app_driving import (
    REPO,
    app_run,
    children_quiet,
    has_row,
    launch_browser,
    probe_run_parser,
    rate,
    watch_run,
)
from app_server import start_app, stop_app

from engine.command.exits import engine_command


def cli_run(env: dict, args: argparse.Namespace, out: Path, threads: int | None = None) -> dict:
    command = engine_command(
        "probe",
        "--data",
        "rt-polarity",
        "--data-dir",
        args.data_dir,
        "--limit",
        str(args.limit),
        "--steps",
        str(args.steps),
        "--metric-every",
        "1",
        "--out",
        str(out),
    )
    if threads:
        command += ["--threads", str(threads)]
    started = time.monotonic()
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first_row = None
    while proc.poll() is None:
        if first_row is None and has_row(out):
            first_row = time.monotonic() - started
        time.sleep(0.1)
    if proc.returncode:
        raise SystemExit(f"CLI run failed with exit code {proc.returncode}")
    return {"rate": rate(out), "first_row": first_row}


#: how long the demo's page is watched after its run ended for the first curve: the demo trains in about a
#: second and is played (drawn) afterwards, from the browser's first drawing of its rows
DEMO_DRAWN_WITHIN = 60.0


def demo_click(page, url: str, runs: Path, read_seconds: float = 0.0) -> dict:
    """A new user: open the app and click the Overview's demo button at once, or after reading the page for
    ``read_seconds``."""
    page.goto(url)
    button = page.get_by_role("button", name="Start the demo")
    button.wait_for(timeout=120_000)
    page.wait_for_timeout(read_seconds * 1000)
    before = set(runs.glob("*")) if runs.exists() else set()
    clicked = time.monotonic()
    button.click()
    seen = watch_run(page, runs, before, clicked, "Demo-*", drawn_within=DEMO_DRAWN_WITHIN)  # preset's name
    if seen["first_frame"] is None:  # the run ended before its film began: the film is back-filled after it
        run_dir = next(iter(set(runs.glob("Demo-*")) - before))
        while time.monotonic() - clicked < 120 and not next((run_dir / "frames").glob("step_*.csv"), None):
            time.sleep(0.2)
        if next((run_dir / "frames").glob("step_*.csv"), None):
            seen["first_frame"] = time.monotonic() - clicked
    return seen


def fmt(value: float | None, unit: str = " s") -> str:
    return "—" if value is None else f"{value:.1f}{unit}"


def median(values: list[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return statistics.median(found) if found else None


def parse_args() -> argparse.Namespace:
    parser = probe_run_parser(3000, 300, "long enough for UMAP frames during the run")
    parser.add_argument("--trials", type=int, default=3, help="rounds (0: only the demo click)")
    parser.add_argument("--umap-every", type=int, default=10, help="the page's default UMAP interval")
    parser.add_argument("--seed", type=int, default=0, help="seed of the condition order")
    parser.add_argument("--no-demo", action="store_true", help="skip the new-user demo click")
    parser.add_argument(
        "--read-seconds",
        type=float,
        default=0.0,
        help="the new user reads the Overview this long before the click",
    )
    parser.add_argument(
        "--blank",
        action="store_true",
        help="also the app's run with the browser on about:blank (the app without the browser's drawing)",
    )
    parser.add_argument(
        "--skip-umap",
        action="store_true",
        help="leave out the app's run with UMAP frames (more rounds of the charts in the same time)",
    )
    parser.add_argument(
        "--job-threads",
        type=int,
        help="torch threads of the app's training child "
        "(EMBEDLAB_JOB_THREADS; default: engine.jobs.default_child_threads)",
    )
    return parser.parse_args()


def conditions(args: argparse.Namespace, threads: int | None) -> dict[str, list[dict]]:
    """The conditions of a round (each with its results so far: none): the CLI, the app with live charts,
    and as ``args`` ask, with UMAP frames, with the browser on a blank page, and the CLI at the threads the
    app gives its training child (``threads``; None: torch's default, the plain CLI's)."""
    results: dict[str, list[dict]] = {"cli": [], "charts": []}
    if not args.skip_umap:
        results["umap"] = []
    if args.blank:
        results["blank"] = []
    if threads:
        results["cli_same"] = []
    return results


def main() -> None:
    args = parse_args()
    cache = Path(tempfile.mkdtemp(prefix="embedlab-bench-"))
    runs = cache / "runs"
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    if args.job_threads is not None:
        env["EMBEDLAB_JOB_THREADS"] = str(args.job_threads)
        os.environ["EMBEDLAB_JOB_THREADS"] = str(args.job_threads)
    print(
        f"cache {cache}; probe rt-polarity limit {args.limit}, {args.steps} steps, metrics every step; "
        f"{args.trials} rounds; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )

    from playwright.sync_api import sync_playwright

    # imported before the server starts, so that a failed import leaves no server behind
    from engine.jobs import default_child_threads

    proc, url = start_app(env)
    threads = default_child_threads("probe")
    results = conditions(args, threads)
    if threads:
        print(
            f"the app's training child uses {threads} torch thread(s) "
            f"(cli_same: the CLI with --threads {threads})"
        )
    order_rng = random.Random(args.seed)
    try:
        with sync_playwright() as pw:
            browser = launch_browser(pw)
            page = browser.new_page()
            if not args.no_demo:
                demo = demo_click(page, url, runs, args.read_seconds)
                print(
                    "new user, demo click on a fresh server: first chart point "
                    f"{fmt(demo['first_point'])} (at step {demo['first_point_step']} of the demo), "
                    f"first curve {fmt(demo['first_points'])} (at step {demo['first_step']}), "
                    f"first row {fmt(demo['first_row'])}, first UMAP frame {fmt(demo['first_frame'])}",
                    flush=True,
                )
                children_quiet(proc, runs)
            else:  # the first page load starts the registry, its warm spare and the UMAP JIT warm-up:
                # not in round 1
                page.goto(url)
                page.get_by_role("button", name="Start the demo").wait_for(timeout=120_000)
            cli_run(env, args, cache / "warm-cli")  # fills the embedding cache of rt-polarity
            children_quiet(proc, runs)
            for trial in range(args.trials):
                order = list(results)
                order_rng.shuffle(order)
                for condition in order:
                    if condition.startswith("cli"):
                        same = threads if condition == "cli_same" else None
                        result = cli_run(env, args, cache / f"{condition}-{trial}", same)
                    else:
                        result = app_run(
                            page,
                            url,
                            args,
                            runs,
                            args.umap_every if condition == "umap" else 0,
                            proc.pid,
                            blank=condition == "blank",
                        )
                        children_quiet(proc, runs)
                    results[condition].append(result)
                    print(
                        f"round {trial + 1} {condition:>8}: {result['rate']:.2f} steps/s, first row "
                        f"{fmt(result.get('first_row'))}, first chart points "
                        f"{fmt(result.get('first_points'))}, "
                        f"first UMAP frame {fmt(result.get('first_frame'))}, chart refresh every "
                        f"{fmt(result.get('refresh'))}{usage(result)} (load {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
            browser.close()
    finally:
        stop_app(proc)
    report(results)


def usage(result: dict) -> str:
    """ ", browser 0.10 core, server 0.08 core" of an app run (while it trained), else ""."""
    found = [f"{who} {result[who]:.2f} core" for who in ("browser", "server") if result.get(who) is not None]
    return ", " + ", ".join(found) if found else ""


def report(results: dict[str, list[dict]]) -> None:
    print("\nmedian over rounds (min–max):")
    for condition, rows in results.items():
        if not rows:  # --trials 0: only the new user's demo click
            continue
        rates = [r["rate"] for r in rows]
        line = f"  {condition:>8}: {statistics.median(rates):.2f} steps/s ({min(rates):.2f}–{max(rates):.2f})"
        if not condition.startswith("cli"):
            for base in ("cli", "cli_same"):
                if base in results:
                    ratios = [a / c["rate"] for a, c in zip(rates, results[base], strict=True)]
                    line += (
                        f"; {statistics.median(ratios):.0%} of {base} in the same round "
                        f"({min(ratios):.0%}–{max(ratios):.0%})"
                    )
            line += (
                f"; first row {fmt(median([r['first_row'] for r in rows]))},"
                f" first chart points {fmt(median([r['first_points'] for r in rows]))},"
                f" chart refresh every {fmt(median([r['refresh'] for r in rows]))}"
            )
            if condition == "umap":
                line += f", first UMAP frame {fmt(median([r['first_frame'] for r in rows]))}"
            for who in ("browser", "server"):
                found = median([r.get(who) for r in rows])
                line += "" if found is None else f", {who} {found:.2f} core"
        else:
            line += f"; first row {fmt(median([r['first_row'] for r in rows]))} (process start included)"
        print(line)


if __name__ == "__main__":
    main()
