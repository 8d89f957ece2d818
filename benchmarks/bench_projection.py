"""Time the projection path on this machine: JIT warm-up, first UMAP frame and warm-started later frames.

    python benchmarks/bench_projection.py [--n 2000] [--d 384] [--frames 5]

Targets: first frame <= 10 s after Start for 2,000 points (the warm-up runs at app start),
later frames <= 2 s each. Each frame includes the exact k-NN (engine.metrics.knn).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--d", type=int, default=384)
    parser.add_argument("--frames", type=int, default=5)
    args = parser.parse_args()

    started = time.perf_counter()
    from engine.charts.projection_frames import N_NEIGHBORS, pca_2d, prewarm_umap, umap_frame
    from engine.metrics import knn

    prewarm_umap()
    print(f"import + JIT warm-up (done at app start): {time.perf_counter() - started:.2f} s")

    rng = np.random.default_rng(0)
    labels = np.arange(args.n) % 6
    centres = rng.normal(size=(6, args.d)).astype(np.float32)
    X = rng.normal(size=(args.n, args.d)).astype(np.float32)

    t = time.perf_counter()
    pca_2d(X)
    print(f"PCA view: {time.perf_counter() - t:.3f} s")

    t = time.perf_counter()
    frame = umap_frame(X + 0.2 * centres[labels], knn=knn(X + 0.2 * centres[labels], N_NEIGHBORS))
    print(f"first UMAP frame (n={args.n}, d={args.d}, k-NN included): {time.perf_counter() - t:.2f} s")
    times = []
    for i in range(1, args.frames + 1):
        Xi = X + (0.2 + 0.3 * i) * centres[labels]  # clusters forming, as in a probe run
        t = time.perf_counter()
        frame = umap_frame(Xi, previous=frame, knn=knn(Xi, N_NEIGHBORS))
        times.append(time.perf_counter() - t)
    print(
        "later frames (warm start): "
        + ", ".join(f"{s:.2f}" for s in times)
        + f" s  (median {np.median(times):.2f} s)"
    )


if __name__ == "__main__":
    main()
