"""``python -m engine claims``: the isotropy paper's setups over seeds, and one table of where its finding
holds (:mod:`engine.claims`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.claims.setups import KEYS, by_keys
from engine.errors import ConfigError
from engine.flags import parse_seeds

DEFAULT_SEEDS = 5


def add_parser(commands: argparse._SubParsersAction) -> None:
    """The ``claims`` subcommand and its flags."""
    sub = commands.add_parser(
        "claims",
        help="the isotropy paper's setups over seeds: where its finding holds",
        description="Runs each of the isotropy paper's setups that the lab can run over several seeds (one "
        "ordinary probe run folder per seed) and prints one table: IsoScore and silhouette start → end, "
        "Pearson r and Spearman ρ (mean ± std over seeds), the paper's figure and whether its finding "
        "(IsoScore falls, silhouette rises, r and ρ ≤ −0.8) holds.",
    )
    sub.add_argument("--seeds", default=str(DEFAULT_SEEDS), help="a count (5: seeds 0-4) or a list (0,1,2)")
    sub.add_argument("--setups", help=f"comma list of setups (default: all but demo): {', '.join(KEYS)}")
    sub.add_argument(
        "--out", default=None, help="folder of the setups' groups claims-<setup> (default: <cache>/groups)"
    )
    sub.add_argument(
        "--data-dir", default=None, help="folder of real data sets (default: $EMBEDLAB_DATA_DIR)"
    )
    sub.add_argument("--short", action="store_true", help="tiny runs (30 updates, 300 items): a first look")
    sub.add_argument("--steps", type=int, help="fewer updates than the setups' (a budget; say so)")
    sub.add_argument("--limit", type=int, help="at most this many items per exact setup (a budget)")
    sub.add_argument("--metric-every", type=int, help="measure every k updates (a budget)")
    sub.add_argument(
        "--sample-size",
        type=int,
        help="train on all items, measure one fixed seeded sample of this many (a budget; see App. A)",
    )
    sub.add_argument("--ray", action="store_true", help="run each setup's seeds as Ray tasks (engine.sweep)")
    sub.add_argument("--address", help="a running Ray cluster to join (implies --ray; default $RAY_ADDRESS)")
    sub.add_argument("--cpus-per-trial", type=float, default=1, help="CPUs per Ray trial (default 1)")
    sub.add_argument("--markdown", action="store_true", help="print the table as Markdown only")


def run(args: argparse.Namespace) -> int:
    """Run the table and print it; exit 0 when every run finished (a failed run is a row's note, exit 1)."""
    from engine import paths
    from engine.claims.run import run_setup
    from engine.claims.table import STRONG, differences, markdown, negligible_lines

    seeds = parse_seeds(args.seeds)
    setups = by_keys([key.strip() for key in args.setups.split(",")] if args.setups else None)
    budget = {
        "steps": args.steps,
        "limit": args.limit,
        "metric_every": args.metric_every,
        "sample_size": args.sample_size,
    }
    for name, value in budget.items():
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be ≥ 1, got {value}")
    executor = None
    if args.ray or args.address:
        from engine.sweep.ray_run import RayExecutor, require_ray

        require_ray()
        executor = RayExecutor(args.address, args.cpus_per_trial, echo=not args.markdown)
    out = Path(args.out) if args.out else paths.groups_dir()
    say = (lambda _: None) if args.markdown else (lambda line: print(line, file=sys.stderr, flush=True))
    started = time.perf_counter()
    rows = []
    for setup in setups:
        rows.append(
            run_setup(
                setup,
                seeds,
                out,
                short=args.short,
                budget=budget,
                data_dir=args.data_dir,
                executor=executor,
                report=say,
            )
        )
    print(markdown(rows))
    if not args.markdown:
        print("\nWhat differs from the paper:")
        for line in differences(rows):
            print(line)
        threshold = f"{STRONG:.1f}".replace("-", "−")
        print(f"\nThe finding holds for a run when IsoScore falls, silhouette rises, r and ρ ≤ {threshold}.")
        for line in negligible_lines(rows):
            print(line)
        print(f"seeds {','.join(map(str, seeds))}; runs in {out}; {time.perf_counter() - started:.0f} s")
    return 0 if all(not row.failed for row in rows) else 1
