"""How far the probe's sampled metrics (``--sample-size N``, a fresh seeded sample per logged step, the
paper's Appendix A) are from the exact ones, on one optimisation trajectory.

    python benchmarks/bench_sampled_metrics.py --data rt-polarity --data-dir ../shared/data
    python benchmarks/bench_sampled_metrics.py --data snli --data-dir ../shared/data [--sizes 1000 5000]
                                               [--steps 1000] [--every 10] [--seed 0]

How: one exact probe run (``engine.probe.run_probe``: every measure on all items at every ``every``-th update,
``geometry_every`` 1) hands back, at each logged step, the full set of vectors it measured (a snapshot of all
items). On those same vectors this script then calls :func:`engine.probe.measure.measure` with
``sample_size`` N: the rows a ``--sample-size N`` run samples at that step (``default_rng([seed, step])``),
measured by the same code. The optimisation never sees the sample, so this equals a sampled run of the same
seed step for step, at the cost of one run instead of three.

Prints, per measure, the exact start -> end values and max / mean |sampled - exact| over the logged steps for
each N, then IsoScore's Pearson r and Spearman rho against the silhouette (exact and per N), and the check
"silhouette within 0.03 at 1,000 samples" (the issue's goal on rt-polarity).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SILHOUETTE_GOAL = 0.03


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="rt-polarity")
    parser.add_argument("--data-dir", default=os.environ.get("EMBEDLAB_DATA_DIR"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, help="a stratified subset (quick checks only)")
    return parser.parse_args()


def main() -> int:
    args = parse_args()

    import torch

    from engine.metrics import series_correlation
    from engine.probe import ProbeConfig, build_problem, run_probe
    from engine.probe.measure import COLUMNS, measure
    from engine.runlog.events import Row

    common = dict(
        data=args.data,
        data_dir=args.data_dir,
        steps=args.steps,
        metric_every=args.every,
        geometry_every=1,
        seed=args.seed,
        limit=args.limit,
        device="cpu",
    )
    exact_config = ProbeConfig(**common, snapshot_every=args.every, snapshot_limit=1_000_000)
    sampled_configs = {n: ProbeConfig(**common, sample_size=n) for n in args.sizes}

    def encode(
        texts: list[str],
    ) -> np.ndarray:  # the run's own cache: the same embeddings, no second encoding
        from engine.encoders import encode_cached, load_encoder

        return encode_cached(load_encoder(None, device="cpu"), texts)

    clusters = torch.from_numpy(build_problem(exact_config, encode).cluster_ids)
    exact: list[dict] = []
    sampled: dict[int, list[dict]] = {n: [] for n in args.sizes}
    started = time.perf_counter()
    for event in run_probe(exact_config):
        if not isinstance(event, Row):
            continue
        assert event.snapshot is not None and len(event.snapshot) == len(clusters), "a snapshot of every item"
        exact.append(dict(event.values))
        points = torch.from_numpy(np.ascontiguousarray(event.snapshot))
        for n, config in sampled_configs.items():
            sampled[n].append(measure(points, clusters, config, None, int(event.step)).values)
    seconds = time.perf_counter() - started

    print(
        f"{args.data}: {len(clusters):,} items, "
        f"{len(exact)} logged steps (0, {args.every}, ..., {args.steps}); "
        f"one exact run + sampled measures: {seconds:.0f} s"
    )
    header = (
        "| measure | exact start → end | "
        + " | ".join(f"{n:,} samples: max (mean)" for n in args.sizes)
        + " |"
    )
    print(header)
    print("|" + "---|" * (2 + len(args.sizes)))
    for name in COLUMNS:
        truth = np.array([np.nan if r.get(name) is None else r[name] for r in exact], dtype=float)
        cells = []
        for n in args.sizes:
            values = np.array([np.nan if r.get(name) is None else r[name] for r in sampled[n]], dtype=float)
            gap = np.abs(values - truth)
            cells.append(f"{np.nanmax(gap):.4f} ({np.nanmean(gap):.4f})")
        print(f"| {name} | {truth[0]:.4g} → {truth[-1]:.4g} | " + " | ".join(cells) + " |")
    series = {"exact": exact, **{f"{n:,}": sampled[n] for n in args.sizes}}
    for what, rows in series.items():
        r, rho = series_correlation([row["isoscore"] for row in rows], [row["silhouette"] for row in rows])
        print(f"IsoScore vs silhouette, {what}: r {r:.3f}, rho {rho:.4f}")
    ok = True
    if 1000 in sampled:
        gap = max(abs(s["silhouette"] - e["silhouette"]) for s, e in zip(sampled[1000], exact, strict=True))
        ok = gap <= SILHOUETTE_GOAL
        print(
            f"silhouette at 1,000 samples: max |sampled - exact| {gap:.4f}   goal <= {SILHOUETTE_GOAL}   "
            f"{'OK' if ok else 'MISSED'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
