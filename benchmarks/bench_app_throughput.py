"""Training throughput in the app vs the CLI, and the time from a click to moving curves.

    python benchmarks/bench_app_throughput.py [--data-dir ../shared/data] [--limit 3000] [--steps 300]
                                              [--trials 3] [--umap-every 10] [--seed 0] [--no-demo]
                                              [--job-threads N] [--blank] [--skip-umap]

One cache folder, one Streamlit server (real browser: Playwright + /usr/bin/chromium), then:

0. (unless --no-demo) a new user's first click: on a fresh server, the Overview's "Start the demo" button;
   seconds to the first chart points (and the demo's step then: the lecture pace counts from the first rows
   shown, so it should be within the first steps), the first metrics row on disk and the first UMAP frame
   (also when the film is back-filled after the run ends), from a fresh cache folder;
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
import contextlib
import importlib.util
import json
import os
import random
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
from app_server import CHROMIUM, CHROMIUM_ARGS, start_app, stop_app  # noqa: E402

from engine.command.exits import engine_command  # noqa: E402

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
    metrics = pd.read_csv(run_dir / "metrics.csv")
    return (metrics["step"].iloc[-1] - metrics["step"].iloc[0]) / (
        metrics["seconds"].iloc[-1] - metrics["seconds"].iloc[0]
    )


def has_row(run_dir: Path) -> bool:
    path = run_dir / "metrics.csv"
    return path.exists() and path.read_bytes().count(b"\n") >= 2


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
    return sum(_cpu_seconds(each) for each in pids)


def _cpu_seconds(pid: int) -> float:
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
                    total += _cpu_seconds(int(proc.name))
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
    page, runs: Path, before: set[Path], clicked: float, pattern: str, server_pid: int | None = None
) -> dict:
    """Follow the run started at ``clicked`` until it finishes: first chart points, first row, first frame,
    and from the first row to the end, the cores used by the browser and by the web server's own process
    (its children, the training, apart)."""
    first_points = first_row = first_frame = first_step = None
    usage_start = None
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
            if drawn[0] > 1:
                first_points, first_step = now, drawn[1]  # the newest step on screen then
                page.evaluate(RECORD_CHANGES, label)  # from here on the page notes the refreshes itself
        if run_dir is not None:
            if first_row is None and has_row(run_dir):
                first_row = now
                usage_start = (
                    time.monotonic(),
                    browser_cpu_seconds(),
                    _cpu_seconds(server_pid) if server_pid else 0.0,
                )
            if first_frame is None and next((run_dir / "frames").glob("step_*.csv"), None):
                first_frame = now
            status = run_dir / "status.json"
            if status.exists() and any(
                f'"{s}"' in status.read_text() for s in ("finished", "failed", "stopped")
            ):
                break
        if now > 1800:
            raise SystemExit("the app run did not finish in 30 minutes")
        time.sleep(0.2)
    browser = server = None
    if usage_start is not None and time.monotonic() - usage_start[0] > 1:
        wall = time.monotonic() - usage_start[0]
        browser = (browser_cpu_seconds() - usage_start[1]) / wall
        server = (_cpu_seconds(server_pid) - usage_start[2]) / wall if server_pid else None
    if first_points is not None:
        changes = page.evaluate(
            "() => { clearInterval(window.benchRecorder); return window.benchChanges || []; }"
        )
    gaps = [(b - a) / 1000 for a, b in zip(changes, changes[1:], strict=False)]
    return {
        "rate": rate(run_dir),
        "first_points": first_points,
        "first_step": first_step,
        "first_row": first_row,
        "first_frame": first_frame,
        "refresh": statistics.median(gaps) if gaps else None,
        "browser": browser,
        "server": server,
    }


def app_run(
    page,
    url: str,
    args: argparse.Namespace,
    runs: Path,
    snapshot_every: int,
    server_pid: int,
    blank: bool = False,
) -> dict:
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
    unseen = ("first_points", "first_step", "first_row", "first_frame", "refresh", "browser", "server")
    return {"rate": rate(run_dir), **dict.fromkeys(unseen)}


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
    seen = watch_run(page, runs, before, clicked, "Demo-*")  # the preset's name
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


def probe_run_parser(limit: int, steps: int, steps_help: str) -> argparse.ArgumentParser:
    """The flags of a benchmark that trains a probe on rt-polarity in the app: the data folder, the
    stratified subset (``--limit``) and the run's steps."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--limit", type=int, default=limit)
    parser.add_argument("--steps", type=int, default=steps, help=steps_help)
    return parser


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
                    "new user, demo click on a fresh server: first chart points "
                    f"{fmt(demo['first_points'])} (at step {demo['first_step']} of the demo), "
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
