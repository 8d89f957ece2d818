"""The wall time of a short probe from the command line, with the encoder's fingerprint remembered (its
embeddings found with no encoder loaded: engine/encoders/known.py) against the same run that must load the
encoder to find them (the memo removed before it: what every run did before the memo).

    python benchmarks/bench_setup.py [--rounds 5] [--steps 1] [--data demo]

Both runs find the embeddings in the same cache (a first run fills it). Interleaved rounds; prints each
round's times and the medians' ratio (memo / load): the machine is shared, so ratios and medians.
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

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--data", default="demo")
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="embedlab-bench-setup-"))
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    memo = cache / "embeddings" / "fingerprints.json"  # engine.encoders.known.MEMO

    def run(name: str) -> float:
        command = [sys.executable, "-m", "engine", "probe", f"--data={args.data}", f"--steps={args.steps}"]
        started = time.perf_counter()
        subprocess.run(
            [*command, "--force", "--out", str(cache / name)],
            cwd=REPO,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return time.perf_counter() - started

    run("first")  # fills the embedding cache and the memo
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load {load:.1f}; probe --data {args.data} --steps {args.steps}")
    times: dict[str, list[float]] = {"memo": [], "load": []}
    for round_number in range(args.rounds):
        times["memo"].append(run("memo"))
        memo.unlink(missing_ok=True)
        times["load"].append(run("load"))  # loads the encoder, finds the embeddings, remembers it again
        print(f"round {round_number + 1}: memo {times['memo'][-1]:.2f} s, load {times['load'][-1]:.2f} s")
    memo_s, load_s = statistics.median(times["memo"]), statistics.median(times["load"])
    print(
        f"median: memo {memo_s:.2f} s ({min(times['memo']):.2f}-{max(times['memo']):.2f}), "
        f"load {load_s:.2f} s ({min(times['load']):.2f}-{max(times['load']):.2f}); "
        f"memo/load {memo_s / load_s:.3f}"
    )


if __name__ == "__main__":
    main()
