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
from collections.abc import Callable
from dataclasses import dataclass

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
    from engine.probe import ProbeConfig

    x, y = make_data(args.n, args.d, args.labels, args.seed)
    probe_config = ProbeConfig(steps=1000)
    if args.geometry_every is not None:
        probe_config = ProbeConfig(steps=1000, geometry_every=args.geometry_every)
    print(
        f"N={args.n} d={args.d} labels={args.labels} repeats={args.repeats} "
        f"torch threads={torch.get_num_threads()} torch {torch.__version__}"
    )
    found = time_jobs(args, jobs_of(x, y, probe_config), {"reference": reference_job(x, y)})
    exact = report_exact(found)
    report_family(found)
    report_probe(found, probe_config.geometry_every, row)
    return 0 if exact else 1


def jobs_of(x: np.ndarray, y: np.ndarray, probe_config) -> dict[str, Callable[[], object]]:
    """The timed calls by name: the matrix product of reference, the lab's measures alone and as the probe
    runs them (``probe_*``), with the isotropy family added or not."""
    from engine import metrics

    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def matmul() -> None:  # the product alone, not kept
        torch.mm(xt, xt.T)

    def lean_profile(a, b):
        return metrics.isotropy_profile(a, b, partition=False)

    def today_side(a, b):  # the probe's side measure before the family: IsoScore
        return metrics.isoscore(a)

    def today_main(a, b):
        return metrics.silhouette(a, b)

    both = metrics.silhouette_and_uniformity

    return {
        "matmul": matmul,
        "ours": lambda: (metrics.silhouette(x, y), metrics.isoscore(x)),
        "with_added": lambda: (metrics.silhouette_and_uniformity(x, y), metrics.isotropy_profile(x, y)),
        "probe_today": lambda: probe_like(xt, yt, today_side, today_main),
        "probe_added": lambda: probe_like(xt, yt, metrics.isotropy_profile, both),
        "with_added_lean": lambda: (metrics.silhouette_and_uniformity(x, y), lean_profile(x, y)),
        "probe_added_lean": lambda: probe_like(xt, yt, lean_profile, both),
        "probe_plain_step": lambda: probe_measure(xt, yt, probe_config, 1),
        "probe_geometry_step": lambda: probe_measure(xt, yt, probe_config, 0),
        "silhouette": lambda: metrics.silhouette(x, y),
        "sil+unif": lambda: metrics.silhouette_and_uniformity(x, y),
        "isoscore": lambda: metrics.isoscore(x),
        "profile": lambda: metrics.isotropy_profile(x, y),
        "spectrum": lambda: metrics.spectrum(x),
        "eff_rank": lambda: metrics.rankme(x),
        "avg_cos": lambda: metrics.average_cosine(x),
        "partition": lambda: metrics.partition_isotropy(x),
        "class_align": lambda: metrics.class_alignment(x, y),
    }


def reference_job(x: np.ndarray, y: np.ndarray) -> Callable[[], tuple[float, float]]:
    """scikit-learn's silhouette and IsoScore 2.0.1, the references of the lab's two measures."""
    from IsoScore import IsoScore as reference_isoscore
    from sklearn.metrics import silhouette_score

    return lambda: (float(silhouette_score(x, y)), float(reference_isoscore.IsoScore(x)))


@dataclass
class Timings:
    """Each job's first value, its wall times and CPU times per round, and their medians."""

    values: dict[str, object]
    times: dict[str, list[float]]
    cpu: dict[str, list[float]]

    @property
    def med(self) -> dict[str, float]:
        return {name: statistics.median(ts) for name, ts in self.times.items()}

    @property
    def cmed(self) -> dict[str, float]:
        return {name: statistics.median(ts) for name, ts in self.cpu.items()}

    def runs_line(self, name: str, width: int) -> str:
        return (
            f"  {name:<{width}} wall median {self.med[name]:.3f} s  cpu median {self.cmed[name]:.3f} s   "
            "wall runs: " + " ".join(f"{t:.3f}" for t in self.times[name])
        )


def time_jobs(args: argparse.Namespace, jobs: dict, slow: dict) -> Timings:
    """One warm-up call of every job (allocator, pools, BLAS), then ``args.repeats`` rounds of the jobs; the
    ``slow`` ones (the references) once per round, or only in the first with --quick."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = {name: fn() for name, fn in {**jobs, **slow}.items()}
        times: dict[str, list[float]] = {name: [] for name in {**jobs, **slow}}
        cpu: dict[str, list[float]] = {name: [] for name in jobs}
        for round_ in range(args.repeats):
            for name, fn in jobs.items():
                wall, used = timed_cpu(fn)
                times[name].append(wall)
                cpu[name].append(used)
            if not args.quick or round_ == 0:
                for name, fn in slow.items():
                    times[name].append(timed(fn)[0])
    return Timings(values, times, cpu)


def report_exact(found: Timings) -> bool:
    """The lab's silhouette and IsoScore against the matrix product and the references: times and values."""
    med, times = found.med, found.times
    for name in ("matmul", "ours", "reference"):
        print(f"  {name:<10} median {med[name]:.3f} s   runs: " + " ".join(f"{t:.3f}" for t in times[name]))
    (sil, iso), (ref_sil, ref_iso) = found.values["ours"], found.values["reference"]
    print(f"  silhouette ours {sil:.10f}  sklearn  {ref_sil:.10f}  |diff| {abs(sil - ref_sil):.2e}")
    print(f"  isoscore   ours {iso:.10f}  IsoScore {ref_iso:.10f}  |diff| {abs(iso - ref_iso):.2e}")
    speed = med["ours"] / med["matmul"]
    gain = med["reference"] / med["ours"]
    ok_speed, ok_gain = speed <= 1.3, gain >= 1.8
    ok_values = abs(sil - ref_sil) <= 1e-5 and abs(iso - ref_iso) <= 1e-5
    print(f"ours / matmul     = {speed:.2f}  (target <= 1.3)  {'OK' if ok_speed else 'MISSED'}")
    print(f"reference / ours  = {gain:.2f}  (target >= 1.8)  {'OK' if ok_gain else 'MISSED'}")
    print(f"values equal to 1e-5: {'OK' if ok_values else 'MISSED'}")
    return ok_speed and ok_gain and ok_values


FAMILY_JOBS = (
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
)


def report_family(found: Timings) -> None:
    """The isotropy family added to one probe step: each job's times, each measure's share, the ratios."""
    print("isotropy family added to one probe step (probe step today = IsoScore + silhouette):")
    for name in FAMILY_JOBS:
        print(found.runs_line(name, 16))
    report_shares(found)
    (sil_u, unif_value), profile = found.values["with_added"]
    sil = found.values["ours"][0]
    print(
        f"  values: silhouette {sil_u:.10f} (= ours {sil:.10f})  uniformity {unif_value:.6f}  "
        f"isoscore {profile['isoscore']:.8f}  RankMe {profile['rankme']:.3f}  "
        f"average cosine {profile['average_cosine']:.6f}  partition {profile['partition_isotropy']:.6f}  "
        f"class alignment {profile['class_alignment']:.6f}  top eigenvalue {profile['spectrum'][0]:.4f}"
    )
    report_added(found)


def report_shares(found: Timings) -> None:
    """Each added measure alone, as a share of the probe step (wall and CPU)."""
    med, cmed = found.med, found.cmed
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


def report_added(found: Timings) -> None:
    """What the family adds to a probe step, as median per-round ratios (goal: at most 10 %)."""
    cpu, times = found.cpu, found.times

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


def report_probe(found: Timings, every: int, row: dict[str, float]) -> None:
    """The probe's measures as it logs them (a plain step, a geometry step every ``every``) against the
    probe step of today; the CPU and wall ratios also go into ``row``."""
    print(f"the probe as it logs them (engine.probe.measure, geometry_every = {every}):")
    row["today_cpu"] = found.cmed["probe_today"]
    for name in ("probe_today", "probe_plain_step", "probe_geometry_step"):
        print(found.runs_line(name, 20))
    for label, table in (("cpu", found.cpu), ("wall", found.times)):
        plain = statistics.median(p / b - 1 for p, b in zip(table["probe_plain_step"], table["probe_today"]))
        geometry = statistics.median(
            g / b - 1 for g, b in zip(table["probe_geometry_step"], table["probe_today"])
        )
        ratio = per_logged_step(table, every)
        row.update({f"plain_{label}": plain, f"geometry_{label}": geometry, f"step_{label}": ratio})
        print(
            f"  added, {label:<4}: plain step {100 * plain:5.1f} %, geometry step {100 * geometry:5.1f} %, "
            f"per logged step {100 * ratio:5.1f} %  (goal <= 10 %)  {'OK' if ratio <= 0.10 else 'MISSED'}"
        )


def per_logged_step(table: dict[str, list[float]], every: int) -> float:
    """What the probe's measures add per logged step: plain steps, and a geometry step every ``every``."""
    if not every:
        return statistics.median(p / b - 1 for p, b in zip(table["probe_plain_step"], table["probe_today"]))
    return statistics.median(
        ((every - 1) * p + g) / every / b - 1
        for p, g, b in zip(table["probe_plain_step"], table["probe_geometry_step"], table["probe_today"])
    )


if __name__ == "__main__":
    sys.exit(main())
