"""The probe at scale: 250 full-batch Adam updates over 400,000 x 384 embeddings from an .npz, with every
metric on a fresh seeded sample of 5,000 items per logged step (the paper's Appendix A protocol for large
sets) and UMAP snapshots of a fixed 2,000-item sample.

    python benchmarks/bench_probe_scale.py [--items 400000] [--dim 384] [--classes 20] [--steps 250]
                                           [--sample-size 5000] [--snapshot-every 25] [--device auto]
                                           [--workdir DIR]

Goals on this project's 2-core CPU machine: the whole command (load, 250 updates, 251 measured steps,
snapshots) in <= 10 min of wall time, and a peak resident set of the probe process <= 4 GiB.

How: a synthetic clustered set (``classes`` Gaussian clusters around random centres, rows of norm ~1, like
sentence embeddings) is written as an uncompressed ``.npz`` by this process; the probe then runs as
``python -m engine probe --data FILE.npz ...`` in a child process, so its peak RSS is the child's alone
(``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``, Linux: KiB), not this generator's. Wall time is the
child's from start to exit. Afterwards the first and last snapshots are projected with UMAP (the app's
film: engine.charts.projection_frames.umap_frame, warm-started) to show the frames still work; that time is
printed apart (the app computes frames in its own process).

Memory plan of the child (float32 everywhere): E (N x d) is the .npz array itself (no copy: the model trains
it in place), its gradient, Adam's two moments (fused Adam from 2**24 parameters: no per-step N x d
temporaries), i.e. 4 x N x d x 4 B = 2.46 GB at 400,000 x 384; the linear classifier's logits are N x C.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.command.exits import engine_command

REPO = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 600.0
GOAL_RSS_GIB = 4.0


def write_set(path: Path, items: int, dim: int, classes: int, seed: int = 0) -> None:
    """``classes`` Gaussian clusters, float32, written in row blocks (one N x d array in memory)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(classes, dim)).astype(np.float32) / np.sqrt(dim)
    labels = rng.integers(0, classes, size=items)
    embeddings = np.empty((items, dim), dtype=np.float32)
    for start in range(0, items, 50_000):
        block = slice(start, min(items, start + 50_000))
        noise = rng.normal(size=(block.stop - block.start, dim)).astype(np.float32) / np.sqrt(dim)
        embeddings[block] = 0.5 * centres[labels[block]] + noise
    np.savez(path, embeddings=embeddings, labels=labels)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=400_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--steps", type=int, default=250)
    parser.add_argument("--sample-size", type=int, default=5000)
    parser.add_argument("--snapshot-every", type=int, default=25)
    parser.add_argument("--snapshot-limit", type=int, default=2000)
    parser.add_argument(
        "--device", default="auto", help="the probe's --device: auto (CUDA, MPS, CPU), cpu, cuda..."
    )
    parser.add_argument("--workdir", help="folder for the .npz and the run (default: a temporary folder)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-probe-scale-") as tmp:
        work = Path(args.workdir) if args.workdir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        data, out = work / f"synthetic-{args.items}x{args.dim}.npz", work / "run"
        started = time.perf_counter()
        write_set(data, args.items, args.dim, args.classes)
        print(
            f"wrote {data.name}: {data.stat().st_size / 2**30:.2f} GiB "
            f"in {time.perf_counter() - started:.1f} s"
        )

        command = engine_command(
            "probe",
            "--data",
            str(data),
            "--steps",
            str(args.steps),
            "--sample-size",
            str(args.sample_size),
            "--snapshot-every",
            str(args.snapshot_every),
            "--snapshot-limit",
            str(args.snapshot_limit),
            "--out",
            str(out),
            "--force",
            "--device",
            args.device,
        )
        print("$", " ".join(command[1:]))
        env = {**os.environ, "EMBEDLAB_NO_PROGRESS": "1"}
        started = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB -> GiB
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            print(f"the probe failed (exit {done.returncode})")
            return 1
        summary = json.loads(done.stdout)
        frames = _frames(out)

    steps = summary["steps_logged"] - 1
    print(
        f"probe: {steps} updates, {summary['steps_logged']} measured steps, state {summary['state']}; "
        f"optimisation {summary['wall_seconds']:.1f} s ({steps / summary['wall_seconds']:.2f} updates/s)"
    )
    print(
        f"IsoScore {summary['isoscore_start']:.4f} -> {summary['isoscore_end']:.4f}, silhouette "
        f"{summary['silhouette_start']:.4f} -> {summary['silhouette_end']:.4f}, Pearson r "
        f"{summary['pearson_r']:.3f}, Spearman rho {summary['spearman_rho']:.4f} "
        f"(on samples of {args.sample_size})"
    )
    print(frames)
    wall_ok, rss_ok = wall <= GOAL_SECONDS, peak <= GOAL_RSS_GIB
    print(
        f"wall time (whole command): {wall:.1f} s   goal <= {GOAL_SECONDS:.0f} s   "
        f"{'OK' if wall_ok else 'MISSED'}"
    )
    print(
        f"peak RSS of the probe:     {peak:.2f} GiB   goal <= {GOAL_RSS_GIB:.0f} GiB   "
        f"{'OK' if rss_ok else 'MISSED'}"
    )
    return 0 if wall_ok and rss_ok else 1


def _frames(run: Path) -> str:
    """UMAP frames of the first and last snapshots (the fixed sample), the second warm-started."""
    from engine import runlog
    from engine.charts.projection_frames import umap_frame

    snapshots = runlog.list_snapshots(run)
    points = runlog.read_points(run)
    first, last = runlog.load_snapshot(snapshots[0][1]), runlog.load_snapshot(snapshots[-1][1])
    started = time.perf_counter()
    frame = umap_frame(first)
    frame = umap_frame(last, previous=frame)
    seconds = time.perf_counter() - started
    ok = frame.shape == (len(points), 2) and np.isfinite(frame).all()
    return (
        f"snapshots: {len(snapshots)} of {first.shape[0]} x {first.shape[1]} "
        f"(points.csv: {len(points)} rows); "
        f"UMAP first + warm-started last frame: {seconds:.1f} s, {'finite' if ok else 'BROKEN'}"
    )


if __name__ == "__main__":
    sys.exit(main())
