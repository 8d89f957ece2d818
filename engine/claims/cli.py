"""``python -m engine claims``: the isotropy paper's setups over seeds, at the paper's length by default, and
one table with the lab's verdict and the paper's (:mod:`engine.claims`). Each table is saved for the app
(:mod:`engine.claims.latest`); ``--markdown-out`` writes its Markdown to a file."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from engine.claims.setups import KEYS, by_keys
from engine.core.atomic import write_text_atomic
from engine.core.errors import ConfigError
from engine.core.flags import parse_seeds

DEFAULT_SEEDS = 5
DEVICE = re.compile(r"(auto|cpu|mps|cuda(:\d+)?)")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """The ``claims`` subcommand and its flags."""
    sub = commands.add_parser(
        "claims",
        help="the isotropy paper's setups over seeds: where its finding holds",
        description="Runs each of the isotropy paper's setups that the lab can run over several seeds (one "
        "ordinary probe run folder per seed), at the paper's length (1000 updates; App. A 250) unless a "
        "budget is given, and prints one table: the updates (and any budget), IsoScore and silhouette start "
        "→ end, Pearson r and Spearman ρ (mean ± std over seeds), the paper's figure and its source, the "
        "lab's verdict (IsoScore falls, the silhouette rises to ≥ 0.1, r and ρ ≤ −0.8) and the paper's "
        "(ρ below −0.998, r within 0.05 of the paper's). Finished runs are read, not run again. The table "
        "is saved for the app under its protocol (<cache>/claims/paper.json, short.json, budget-….json): the "
        "app shows the longest.",
    )
    sub.add_argument("--seeds", default=str(DEFAULT_SEEDS), help="a count (5: seeds 0-4) or a list (0,1,2)")
    sub.add_argument("--setups", help=f"comma list of setups (default: all but demo): {', '.join(KEYS)}")
    sub.add_argument(
        "--out",
        default=None,
        help="folder of the setups' groups claims-<setup>[-<budget>] (default: <cache>/groups); carry it to "
        "another machine and run the same command there to print the same table without training",
    )
    sub.add_argument(
        "--data-dir",
        default=None,
        help="folder of real data sets (default: $EMBEDLAB_DATA_DIR, else ../shared/data beside the lab)",
    )
    sub.add_argument("--short", action="store_true", help="tiny runs (30 updates, 300 items): a first look")
    sub.add_argument("--steps", type=int, help="other updates than the setups' own (a budget; shown)")
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
    sub.add_argument(
        "--device",
        help="where the probe runs: auto (default), cpu, mps, cuda or cuda:N (not part of a "
        "run's identity: runs made on a GPU are read on a CPU)",
    )
    sub.add_argument("--markdown", action="store_true", help="print the table as Markdown only")
    sub.add_argument("--markdown-out", metavar="PATH", help="also write the Markdown table to PATH")


def command_line(args: argparse.Namespace) -> str:
    """The table's command, flags in a fixed order (what the saved table and docs/results.md print)."""
    words = ["python", "-m", "engine", "claims", "--seeds", str(args.seeds)]
    for flag in ("setups", "steps", "limit", "metric_every", "sample_size", "device", "out", "data_dir"):
        value = getattr(args, flag, None)
        if value is not None:
            words += [f"--{flag.replace('_', '-')}", str(value)]
    return shlex.join(words + (["--short"] if args.short else []))


def budget_of(args: argparse.Namespace) -> dict[str, Any]:
    """The budget flags given (``steps``, ``limit``, ``metric_every``, ``sample_size``), each checked ≥ 1."""
    budget = {
        "steps": args.steps,
        "limit": args.limit,
        "metric_every": args.metric_every,
        "sample_size": args.sample_size,
    }
    for name, value in budget.items():
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be ≥ 1, got {value}")
    return budget


def out_of(args: argparse.Namespace) -> Path:
    """The folder of the setups' groups: ``--out``, else ``<cache>/groups``."""
    from engine.core import paths

    return Path(args.out) if args.out else paths.groups_dir()


def run(args: argparse.Namespace) -> int:
    """Run the table, print it and save it; exit 0 when every run finished (a failed run is a row's note,
    exit 1)."""
    from engine.claims import latest
    from engine.claims.run import run_setup
    from engine.claims.table import differences, markdown, negligible_lines, rules
    from engine.core import paths

    seeds = parse_seeds(args.seeds)
    setups = by_keys([key.strip() for key in args.setups.split(",")] if args.setups else None)
    budget = budget_of(args)
    if args.device is not None and not DEVICE.fullmatch(args.device):
        raise ConfigError(f"--device: unknown device {args.device!r}: use auto, cpu, mps, cuda or cuda:N")
    executor = None
    if args.ray or args.address:
        from engine.sweep.ray_run import RayExecutor, require_ray

        require_ray()
        executor = RayExecutor(args.address, args.cpus_per_trial, echo=not args.markdown)
    out = out_of(args)
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
                data_dir=paths.command_data_dir(args.data_dir),
                device=args.device,
                executor=executor,
                report=say,
            )
        )
    table = markdown(rows)
    print(table)
    command = command_line(args)
    protocol = latest.protocol_of(args.short, budget)
    saved = latest.save(
        latest.record(rows, command=command, seeds=seeds, out=str(out), markdown=table, protocol=protocol)
    )
    if args.markdown_out:
        _write(Path(args.markdown_out), f"{table}\n")
    if not args.markdown:
        print("\nWhat differs from the paper:")
        for line in differences(rows):
            print(line)
        print()
        for line in rules():
            print(line)
        for line in negligible_lines(rows):
            print(line)
        print(f"seeds {','.join(map(str, seeds))}; runs in {out}; {time.perf_counter() - started:.0f} s")
        print(
            f"saved for the app: {saved}" + (f"; Markdown: {args.markdown_out}" if args.markdown_out else "")
        )
    return 0 if all(not row.failed for row in rows) else 1


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (one ConfigError line when it cannot)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)  # whole or not at all (issue 47)
    except OSError as err:
        raise ConfigError(f"--markdown-out: cannot write {path}: {err.strerror or err}") from None
