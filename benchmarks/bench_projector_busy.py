"""How busy the app's server keeps a page in projector mode while a long run trains.

    python benchmarks/bench_projector_busy.py [--seconds 40] [--busy 0] [--repeats 1]

A fresh server (tests/e2e's launcher, its own cache folder) and chromium: one session starts a long demo run
(100,000 steps, a UMAP frame every 25 steps, tests/e2e/browser_flow.start_long_run), a second session opens
the Isotropy page at 1280×720 and turns projector mode on. Then every 0.25 s for ``--seconds``: whether a
script run of that session is under way (Streamlit's ``data-test-script-state``) and whether any element of
its main area is stale (greyed out while a run goes). Printed: both fractions, the server process's own CPU
(cores, from /proc, training and UMAP children apart) and the 1-min load. ``--busy N`` starts N busy Python
loops at nice 0 beside it (a loaded machine; they are this script's children, killed at its end).

Both fractions should be low: a page that is always running never settles, and its charts stay greyed out
on the projector. No reference in the same run: compare a worktree of the code before on the same machine
and hour (docs/performance.md, "The UMAP frames leave the server").
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "e2e"), str(REPO / "tests")]

from browser_flow import VIEWPORTS, chromium, open_isotropy, start_long_run, streamlit_server  # noqa: E402

STATE = (
    "() => [document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state'),"
    " document.querySelectorAll(\"[data-testid='stMain'] [data-stale='true']\").length]"
)
BUSY_LOOP = "while True: pass"


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (its threads; not its children), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(seconds: float) -> dict[str, float]:
    """One fresh server and browser; the fractions of samples running and stale, the server's cores."""
    with streamlit_server(Path(tempfile.mkdtemp(prefix="projector-busy-"))) as server, chromium() as browser:
        start_long_run(browser, server, VIEWPORTS["laptop"])
        page = open_isotropy(browser, server, VIEWPORTS["projector"])
        page.get_by_text("Projector mode", exact=True).first.click()
        page.wait_for_timeout(5000)
        cpu, wall = process_cpu_seconds(server.pid), time.monotonic()
        samples = []
        while time.monotonic() - wall < seconds:
            samples.append(page.evaluate(STATE))
            page.wait_for_timeout(250)
        cores = (process_cpu_seconds(server.pid) - cpu) / (time.monotonic() - wall)
    return {
        "running": sum(state == "running" for state, _ in samples) / len(samples),
        "stale": sum(stale > 0 for _, stale in samples) / len(samples),
        "server_cores": cores,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--busy", type=int, default=0, help="busy Python loops beside it (nice 0)")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    loops = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(args.busy)]
    try:
        for repeat in range(args.repeats):
            found = measure(args.seconds)
            print(
                f"run {repeat + 1}: running {found['running']:.0%} of samples, stale {found['stale']:.0%}, "
                f"server {found['server_cores']:.2f} cores, load {found['load']:.1f}, busy loops {args.busy}",
                flush=True,
            )
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


if __name__ == "__main__":
    main()
