"""Benchmark: exact silhouette + IsoScore (engine.metrics) against one float32 matrix product and against
the references (scikit-learn ``silhouette_score`` + ``IsoScore.IsoScore`` 2.0.1), in the same run.

Data shaped like Mickus et al. 2024 setup (i): N = 10,662 sentences x d = 384 (all-MiniLM-L6-v2), 2 labels.
Targets (issue 2): ours <= 1.3 x matmul (X @ X.T, float32, N x d x N) and reference >= 1.8 x ours.
Repeats are interleaved (a, b, c, a, b, c, ...) after a warm-up and medians compared, so load from other
processes on the machine hits all three alike.

    python benchmarks/bench_metrics.py [--n 10662] [--d 384] [--repeats 5] [--labels 2] [--threads T]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import numpy as np
import torch


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10662, help="number of points (default: 10662)")
    parser.add_argument("--d", type=int, default=384, help="dimensions (default: 384)")
    parser.add_argument("--labels", type=int, default=2, help="number of classes (default: 2)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats of each (default: 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    return parser.parse_args(argv)


def make_data(n: int, d: int, labels: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random float32 embeddings with a little class structure, and balanced-ish integer labels."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, labels, n)
    centres = rng.normal(size=(labels, d)).astype(np.float32) * 0.3
    x = rng.normal(size=(n, d)).astype(np.float32) + centres[y]
    return x, y


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    from IsoScore import IsoScore as reference_isoscore
    from sklearn.metrics import silhouette_score

    from engine.metrics import isoscore, silhouette

    x, y = make_data(args.n, args.d, args.labels, args.seed)
    xt = torch.from_numpy(x)

    def matmul() -> None:
        torch.mm(xt, xt.T)

    def ours() -> tuple[float, float]:
        return silhouette(x, y), isoscore(x)

    def reference() -> tuple[float, float]:
        return float(silhouette_score(x, y)), float(reference_isoscore.IsoScore(x))

    jobs = {"matmul": matmul, "ours": ours, "reference": reference}
    print(
        f"N={args.n} d={args.d} labels={args.labels} repeats={args.repeats} "
        f"torch threads={torch.get_num_threads()} torch {torch.__version__}"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = {name: fn() for name, fn in jobs.items()}  # warm-up (allocator, thread pools, BLAS)
        times: dict[str, list[float]] = {name: [] for name in jobs}
        for _ in range(args.repeats):
            for name, fn in jobs.items():
                seconds, _ = timed(fn)
                times[name].append(seconds)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    for name in jobs:
        print(f"  {name:<10} median {med[name]:.3f} s   runs: " + " ".join(f"{t:.3f}" for t in times[name]))
    (sil, iso), (ref_sil, ref_iso) = values["ours"], values["reference"]
    print(f"  silhouette ours {sil:.10f}  sklearn  {ref_sil:.10f}  |diff| {abs(sil - ref_sil):.2e}")
    print(f"  isoscore   ours {iso:.10f}  IsoScore {ref_iso:.10f}  |diff| {abs(iso - ref_iso):.2e}")
    speed = med["ours"] / med["matmul"]
    gain = med["reference"] / med["ours"]
    ok_speed, ok_gain = speed <= 1.3, gain >= 1.8
    ok_values = abs(sil - ref_sil) <= 1e-5 and abs(iso - ref_iso) <= 1e-5
    print(f"ours / matmul     = {speed:.2f}  (target <= 1.3)  {'OK' if ok_speed else 'MISSED'}")
    print(f"reference / ours  = {gain:.2f}  (target >= 1.8)  {'OK' if ok_gain else 'MISSED'}")
    print(f"values equal to 1e-5: {'OK' if ok_values else 'MISSED'}")
    return 0 if ok_speed and ok_gain and ok_values else 1


if __name__ == "__main__":
    sys.exit(main())
