"""Training speed of the app's job children against the CLI, with no server and no browser.

    python benchmarks/bench_spare.py [--data-dir ../shared/data] [--rounds 5] [--steps 300] [--limit 3000]

Interleaved rounds of the same probe (rt-polarity, a stratified subset, metrics every step): ``cli`` (``python
-m engine probe``), ``warm`` (a run of a job registry's warm spare: the child that imported torch and loaded
the bundled encoder while the lab was idle) and ``cold`` (a registry without spares: a child started for the
run). Prints each round's rates and each child's rate as a share of the CLI's in the same round (medians and
ranges: the machine is shared). The allocator policy of training processes (engine/compute/allocator.py) was
measured with it: without it the warm spare trained at 93 % of the CLI, a cold child at 102 %.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def rate(run_dir: Path) -> float:
    metrics = pd.read_csv(run_dir / "metrics.csv")
    steps = metrics["step"].iloc[-1] - metrics["step"].iloc[0]
    return steps / (metrics["seconds"].iloc[-1] - metrics["seconds"].iloc[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--limit", type=int, default=3000)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="embedlab-bench-spare-"))
    os.environ.update({"EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"})
    from engine.jobs import JobRegistry

    config = {
        "data": "rt-polarity",
        "data_dir": args.data_dir,
        "limit": args.limit,
        "steps": args.steps,
        "metric_every": 1,
        "snapshot_every": 0,
    }
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in config.items()]

    def cli(out: Path) -> float:
        command = [sys.executable, "-m", "engine", "probe", *flags, "--out", str(out)]
        subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return rate(out)

    def child(registry: JobRegistry, warm: bool) -> float:
        if warm:
            registry._spares.wait_warm(180)  # a click that finds the spare ready, as on an idle lab
        job = registry.submit("probe", config)
        while job.active or job.state == "queued":
            time.sleep(0.2)
        if job.state != "finished":
            raise SystemExit(f"the {'warm' if warm else 'cold'} run ended {job.state}: {job.error}")
        return rate(job.run_dir)

    cli(cache / "first-cli")  # fills the embedding cache
    registries = {
        "warm": JobRegistry(cache / "runs-warm"),
        "cold": JobRegistry(cache / "runs-cold", warm=False),
    }
    rates: dict[str, list[float]] = {"cli": [], "warm": [], "cold": []}
    print(
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; probe rt-polarity limit {args.limit}",
        flush=True,
    )
    for round_ in range(args.rounds):
        for condition in rates:
            if condition == "cli":
                found = cli(cache / f"cli-{round_}")
            else:
                found = child(registries[condition], condition == "warm")
            rates[condition].append(found)
            time.sleep(3)
        line = ", ".join(f"{name} {values[-1]:.2f} steps/s" for name, values in rates.items())
        print(f"round {round_ + 1}: {line} (load {os.getloadavg()[0]:.1f})", flush=True)
    for name in ("warm", "cold"):
        ratios = [a / b for a, b in zip(rates[name], rates["cli"], strict=True)]
        print(
            f"{name}: {statistics.median(ratios):.0%} of the CLI in the same round "
            f"({min(ratios):.0%}–{max(ratios):.0%})"
        )
    for registry in registries.values():
        registry.shutdown(timeout=30)


if __name__ == "__main__":
    main()
