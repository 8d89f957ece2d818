"""Benchmark: exact silhouette + IsoScore (engine.metrics) against one float32 matrix product and against
the references (scikit-learn ``silhouette_score`` + ``IsoScore.IsoScore`` 2.0.1), in the same run; and the
cost of the isotropy family added to one probe step's metric work, in the same run.

Data shaped like Mickus et al. 2024 setup (i): N = 10,662 sentences x d = 384 (all-MiniLM-L6-v2), 2 labels.
Targets (issue 2): ours <= 1.3 x matmul (X @ X.T, float32, N x d x N) and reference >= 1.8 x ours.
Goal (issue "The geometry lens", 1 and 6): everything added <= 10 % of a probe step's metric work, where a
probe step today is IsoScore + silhouette ("ours"), and with the additions it is
``silhouette_and_uniformity`` (uniformity summed in the silhouette's distance blocks) + ``isotropy_profile``
with labels (IsoScore, spectrum, effective rank, average cosine, partition isotropy and class alignment
from one float64 covariance pass; it replaces the IsoScore call), and also without the partition
isotropy (``partition=False``: the one measure that needs an N x d x d float64 product of its own).
Measured both sequentially and as the probe runs them (``engine.probe.measure``: IsoScore/profile on a
side thread beside the silhouette's worker pool, inside ``tasks_not_ops``). Each added measure alone is
also timed (standalone, so each pays its own covariance pass: the breakdown over-counts what the shared
pass costs).
The probe as it logs them (``engine.probe.measure`` with the default ``ProbeConfig``): IsoScore, silhouette,
average cosine and class alignment every logged step, and on every ``geometry_every``-th one (a geometry
step) also uniformity, effective rank, partition isotropy and the spectrum. Timed at a plain and at a
geometry step against today's probe step; the added share per logged step is
((k - 1) plain + geometry) / k / today - 1, per round, median over rounds.
Repeats are interleaved (a, b, c, a, b, c, ...) after a warm-up and medians compared, so load from other
processes on the machine hits all alike; the "added" ratio is the median of the per-round ratios. The
added measures are reported in wall time and in CPU time of this process (``time.process_time``, all
threads): on a machine shared with other busy processes the CPU time is the stable measure of the work
(descheduled time does not count), the wall time is what a probe step takes there and then.

    python benchmarks/bench_metrics.py [--n 10662] [--d 384] [--repeats 5] [--labels 2] [--threads T]
                                       [--quick] [--geometry-every K] [--markdown]

``--markdown`` prints only the probe's row as a Markdown table (the rest goes to stderr; exit 0): the table
of docs/results.md, "What they cost", written by ``python -m engine results``.
"""

from __future__ import annotations

import argparse
import contextlib
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
    parser.add_argument(
        "--quick", action="store_true", help="2 repeats, the slow references timed once (about a minute)"
    )
    parser.add_argument(
        "--geometry-every", type=int, default=None, help="the probe's geometry_every (default: ProbeConfig's)"
    )
    parser.add_argument("--markdown", action="store_true", help="only the probe's row, as a Markdown table")
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


def timed_cpu(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process over all its threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def probe_like(x: torch.Tensor, y: torch.Tensor, side_fn, main_fn):
    """One metric step as ``engine.probe.run_probe`` runs it on the CPU: ops on one thread per task, the
    side function on the side thread, the main one on the worker pool (``engine.probe.measure``)."""
    from engine.metrics._parallel import side_executor, tasks_not_ops

    with tasks_not_ops(x.device) as workers:
        if workers <= 1:
            return side_fn(x, y), main_fn(x, y)
        with side_executor() as side:
            pending = side.submit(side_fn, x, y)
            main = main_fn(x, y)
            return pending.result(), main


def probe_measure(x: torch.Tensor, y: torch.Tensor, config, step: int):
    """``engine.probe.measure`` as ``run_probe`` calls it on the CPU (inside ``tasks_not_ops``, with the side
    thread when there are several workers)."""
    from engine.metrics._parallel import side_executor, tasks_not_ops
    from engine.probe.measure import measure

    with tasks_not_ops(x.device) as workers:
        if workers <= 1:
            return measure(x, y, config, None, step)
        with side_executor() as side:
            return measure(x, y, config, side, step)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.markdown:
        return measure_all(args, {})
    row: dict[str, float] = {}
    with contextlib.redirect_stdout(sys.stderr):
        measure_all(args, row)
    head = (
        "| data size | IsoScore + silhouette alone (CPU) | a plain step, against it "
        "| a geometry step, against it | **per logged step** (CPU / wall) |"
    )
    cells = [
        f"{args.n:,} × {args.d}, {args.labels} labels",
        f"{row['today_cpu']:.3f} s",
        f"{100 * row['plain_cpu']:+.1f} %",
        f"{100 * row['geometry_cpu']:+.1f} %",
        f"**{100 * row['step_cpu']:+.1f} % / {100 * row['step_wall']:+.1f} %**",
    ]
    cells = [cell.replace("-", "−") for cell in cells]
    print(head, "|---|---|---|---|---|", "| " + " | ".join(cells) + " |", sep="\n")
    return 0


def measure_all(args: argparse.Namespace, row: dict[str, float]) -> int:
    """Every timing of the benchmark, printed; the probe's figures also go into ``row`` (for --markdown)."""
    if args.quick:
        args.repeats = 2
    if args.threads:
        torch.set_num_threads(args.threads)
    from IsoScore import IsoScore as reference_isoscore
    from sklearn.metrics import silhouette_score

    from engine.metrics import (
        average_cosine,
        class_alignment,
        isoscore,
        isotropy_profile,
        partition_isotropy,
        rankme,
        silhouette,
        silhouette_and_uniformity,
        spectrum,
    )
    from engine.probe import ProbeConfig

    x, y = make_data(args.n, args.d, args.labels, args.seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    probe_config = ProbeConfig(steps=1000)
    if args.geometry_every is not None:
        probe_config = ProbeConfig(steps=1000, geometry_every=args.geometry_every)
    every = probe_config.geometry_every  # step 0 is a geometry step, step 1 a plain one (unless every <= 1)

    def matmul() -> None:
        torch.mm(xt, xt.T)

    def ours() -> tuple[float, float]:
        return silhouette(x, y), isoscore(x)

    def reference() -> tuple[float, float]:
        return float(silhouette_score(x, y)), float(reference_isoscore.IsoScore(x))

    def with_added() -> tuple[tuple[float, float], dict]:
        return silhouette_and_uniformity(x, y), isotropy_profile(x, y)

    def with_added_lean() -> tuple[tuple[float, float], dict]:
        return silhouette_and_uniformity(x, y), isotropy_profile(x, y, partition=False)

    def probe_today() -> object:
        return probe_like(xt, yt, lambda a, b: isoscore(a), lambda a, b: silhouette(a, b))

    def probe_added() -> object:
        return probe_like(xt, yt, isotropy_profile, silhouette_and_uniformity)

    def probe_added_lean() -> object:
        return probe_like(
            xt, yt, lambda a, b: isotropy_profile(a, b, partition=False), silhouette_and_uniformity
        )

    jobs = {
        "matmul": matmul,
        "ours": ours,
        "with_added": with_added,
        "probe_today": probe_today,
        "probe_added": probe_added,
        "with_added_lean": with_added_lean,
        "probe_added_lean": probe_added_lean,
        "probe_plain_step": lambda: probe_measure(xt, yt, probe_config, 1),
        "probe_geometry_step": lambda: probe_measure(xt, yt, probe_config, 0),
        "silhouette": lambda: silhouette(x, y),
        "sil+unif": lambda: silhouette_and_uniformity(x, y),
        "isoscore": lambda: isoscore(x),
        "profile": lambda: isotropy_profile(x, y),
        "spectrum": lambda: spectrum(x),
        "eff_rank": lambda: rankme(x),
        "avg_cos": lambda: average_cosine(x),
        "partition": lambda: partition_isotropy(x),
        "class_align": lambda: class_alignment(x, y),
    }
    slow = {"reference": reference}
    print(
        f"N={args.n} d={args.d} labels={args.labels} repeats={args.repeats} "
        f"torch threads={torch.get_num_threads()} torch {torch.__version__}"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = {name: fn() for name, fn in {**jobs, **slow}.items()}  # warm-up (allocator, pools, BLAS)
        times: dict[str, list[float]] = {name: [] for name in {**jobs, **slow}}
        cpu: dict[str, list[float]] = {name: [] for name in jobs}
        for round_ in range(args.repeats):
            for name, fn in jobs.items():
                wall, used = timed_cpu(fn)
                times[name].append(wall)
                cpu[name].append(used)
            if not args.quick or round_ == 0:
                times["reference"].append(timed(reference)[0])
    med = {name: statistics.median(ts) for name, ts in times.items()}
    for name in ("matmul", "ours", "reference"):
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

    print("isotropy family added to one probe step (probe step today = IsoScore + silhouette):")
    cmed = {name: statistics.median(ts) for name, ts in cpu.items()}
    for name in (
        "ours",
        "with_added",
        "with_added_lean",
        "probe_today",
        "probe_added",
        "probe_added_lean",
        "silhouette",
        "sil+unif",
        "isoscore",
        "profile",
    ):
        print(
            f"  {name:<16} wall median {med[name]:.3f} s  cpu median {cmed[name]:.3f} s   wall runs: "
            + " ".join(f"{t:.3f}" for t in times[name])
        )
    base, cbase = med["ours"], cmed["ours"]
    print(
        "  each added measure alone, share of the probe step (standalone: each pays its own covariance pass)"
    )
    print("                                            wall ms  wall %    cpu ms   cpu %")

    def share(label: str, wall: float, used: float) -> None:
        print(
            f"    {label:<38} {wall * 1e3:7.1f} {100 * wall / base:6.1f}   "
            f"{used * 1e3:7.1f} {100 * used / cbase:6.1f}"
        )

    share(
        "uniformity (in the silhouette pass)",
        med["sil+unif"] - med["silhouette"],
        cmed["sil+unif"] - cmed["silhouette"],
    )
    for name in ("spectrum", "eff_rank", "avg_cos", "partition", "class_align"):
        share(name, med[name], cmed[name])
    share(
        "profile - isoscore (shared pass)",
        med["profile"] - med["isoscore"],
        cmed["profile"] - cmed["isoscore"],
    )
    (sil_u, unif_value), profile = values["with_added"]
    print(
        f"  values: silhouette {sil_u:.10f} (= ours {sil:.10f})  uniformity {unif_value:.6f}  "
        f"isoscore {profile['isoscore']:.8f}  RankMe {profile['rankme']:.3f}  "
        f"average cosine {profile['average_cosine']:.6f}  partition {profile['partition_isotropy']:.6f}  "
        f"class alignment {profile['class_alignment']:.6f}  top eigenvalue {profile['spectrum'][0]:.4f}"
    )

    def added(new: str, old: str, table: dict[str, list[float]]) -> float:
        return statistics.median(a / b - 1 for a, b in zip(table[new], table[old]))

    ratios = {
        "sequential, cpu": added("with_added", "ours", cpu),
        "sequential, wall": added("with_added", "ours", times),
        "as the probe runs it, cpu": added("probe_added", "probe_today", cpu),
        "as the probe runs it, wall": added("probe_added", "probe_today", times),
        "no partition, sequential, cpu": added("with_added_lean", "ours", cpu),
        "no partition, probe, cpu": added("probe_added_lean", "probe_today", cpu),
        "no partition, probe, wall": added("probe_added_lean", "probe_today", times),
    }
    for label, ratio in ratios.items():
        print(
            f"added / probe step ({label:<29}) = {100 * ratio:5.1f} %  (goal <= 10 %)  "
            f"{'OK' if ratio <= 0.10 else 'MISSED'}"
        )

    print(f"the probe as it logs them (engine.probe.measure, geometry_every = {every}):")
    row["today_cpu"] = cmed["probe_today"]
    for name in ("probe_today", "probe_plain_step", "probe_geometry_step"):
        print(
            f"  {name:<20} wall median {med[name]:.3f} s  cpu median {cmed[name]:.3f} s   wall runs: "
            + " ".join(f"{t:.3f}" for t in times[name])
        )

    def per_step(table: dict[str, list[float]]) -> float:
        if not every:
            return statistics.median(
                p / b - 1 for p, b in zip(table["probe_plain_step"], table["probe_today"])
            )
        return statistics.median(
            ((every - 1) * p + g) / every / b - 1
            for p, g, b in zip(table["probe_plain_step"], table["probe_geometry_step"], table["probe_today"])
        )

    for label, table in (("cpu", cpu), ("wall", times)):
        plain = statistics.median(p / b - 1 for p, b in zip(table["probe_plain_step"], table["probe_today"]))
        geometry = statistics.median(
            g / b - 1 for g, b in zip(table["probe_geometry_step"], table["probe_today"])
        )
        ratio = per_step(table)
        row.update({f"plain_{label}": plain, f"geometry_{label}": geometry, f"step_{label}": ratio})
        print(
            f"  added, {label:<4}: plain step {100 * plain:5.1f} %, geometry step {100 * geometry:5.1f} %, "
            f"per logged step {100 * ratio:5.1f} %  (goal <= 10 %)  {'OK' if ratio <= 0.10 else 'MISSED'}"
        )
    return 0 if ok_speed and ok_gain and ok_values else 1


if __name__ == "__main__":
    sys.exit(main())
