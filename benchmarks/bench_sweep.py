"""A sweep on Ray (a pool of warm workers) against the same trials run one by one in one process.

    python benchmarks/bench_sweep.py [--rounds 3] [--steps 150] [--ray-cpus 2]

Eight short probes (the demo corpus, ``--steps`` updates, lr ∈ {1e-3, 1e-2} × seeds 0–3), each side a fresh
``python -m engine sweep`` process timed from its start to its exit, so each pays what a user pays: ``one by
one`` imports torch and loads the encoder once and runs the trials in turn (torch's own thread count);
``ray`` starts a local Ray of ``--ray-cpus`` CPUs (no dashboard), a pool of one-CPU actors that import torch
once each and run trial after trial, and shuts Ray down. The rounds alternate which side goes first; the
machine may be shared, so the ratio is the median of the rounds' ratios. Also printed: the largest
difference of any logged measure between the two sides (torch's thread count may change the last bits).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
GRID = ["--grid", "lr=1e-3,1e-2", "--seeds", "4"]


def sweep(out: Path, steps: int, extra: list[str]) -> float:
    """Wall seconds of one ``python -m engine sweep probe`` process (it must exit 0)."""
    command = [sys.executable, "-m", "engine", "sweep", "probe", "--data", "demo", "--steps", str(steps)]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, *GRID, *extra, "--out", str(out)], cwd=REPO, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command + extra)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds


def largest_difference(left: Path, right: Path) -> float:
    """The largest absolute difference of any logged measure between the two groups' runs."""
    from engine import groups, runlog

    worst = 0.0
    right_dirs = groups.member_dirs(groups.read_group(right))
    for member_id, folder in groups.member_dirs(groups.read_group(left)).items():
        a, b = runlog.read_metrics(folder), runlog.read_metrics(right_dirs[member_id])
        columns = [c for c in a.columns if c != "seconds"]
        worst = max(worst, float(np.nanmax(np.abs(a[columns].to_numpy(float) - b[columns].to_numpy(float)))))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--ray-cpus", type=int, default=2)
    args = parser.parse_args()
    os.environ.update({"HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"})
    root = Path(tempfile.mkdtemp(prefix="embedlab-bench-sweep-"))
    sides = {
        "one by one": [],
        "ray": ["--ray", "--ray-cpus", str(args.ray_cpus), "--cpus-per-trial", "1"],
    }
    print(f"8 probe trials (demo, {args.steps} steps); Ray: {args.ray_cpus} CPUs, one actor per CPU")
    ratios, times = [], {name: [] for name in sides}
    try:
        for index in range(args.rounds):
            order = list(sides) if index % 2 == 0 else list(sides)[::-1]
            took = {}
            for name in order:
                out = root / f"{name.replace(' ', '-')}-{index}"
                took[name] = sweep(out, args.steps, sides[name])
                times[name].append(took[name])
            ratios.append(took["ray"] / took["one by one"])
            difference = largest_difference(root / f"one-by-one-{index}", root / f"ray-{index}")
            print(
                f"round {index + 1}: one by one {took['one by one']:.1f} s, ray {took['ray']:.1f} s, "
                f"ray/one-by-one {ratios[-1]:.2f} (largest difference of a logged measure {difference:.1e})",
                flush=True,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    one, ray = statistics.median(times["one by one"]), statistics.median(times["ray"])
    spread = f"rounds {min(ratios):.2f}-{max(ratios):.2f}"
    print(
        f"median of {args.rounds}: one by one {one:.1f} s, ray {ray:.1f} s; "
        f"ray/one-by-one {statistics.median(ratios):.2f} (goal <= 0.60; {spread})"
    )


if __name__ == "__main__":
    main()
