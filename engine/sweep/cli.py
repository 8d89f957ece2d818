"""``python -m engine sweep EXPERIMENT --grid KNOB=V1,V2 [--grid …] [--seeds …] [its options] --out GROUP
[--ray] [--address ADDR] [--cpus-per-trial N] [--gpus-per-trial F] [--retry-failed]``.

The grid's runs form a group (:mod:`engine.groups`); they run one by one in this process, or as Ray tasks
with ``--ray`` (``--address`` joins a running Ray and implies ``--ray``). ``--retry-failed`` reruns the
members of an existing group that are not done (failed, or left queued or running by a process that
ended), each with its recorded settings. Exit 0 when every member is done, 1 when one failed.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import asdict
from typing import Any

from engine import flags, groups
from engine.errors import ConfigError, one_line
from engine.experiments import EXPERIMENTS
from engine.groups.format import grid_members
from engine.sweep.grid import parse_grid

EXIT_FAILED = 1


def add_parser(commands: Any) -> None:
    """The ``sweep`` command, one sub-command per experiment with that experiment's own flags."""
    sweep = commands.add_parser(
        "sweep",
        help="a grid of runs (any declared knob × seeds) as a group, locally or on Ray",
        description="Run an experiment over a grid of knob values (and seeds) as a group of runs, one by "
        "one here or on Ray (--ray; --address joins a running Ray cluster).",
    )
    kinds = sweep.add_subparsers(dest="experiment", required=True, metavar="EXPERIMENT")
    for kind, experiment in EXPERIMENTS.items():
        if not experiment.cli:
            continue
        sub = kinds.add_parser(kind, help=experiment.title, description=f"A sweep of {experiment.title}")
        importlib.import_module(experiment.cli).add_arguments(sub)
        _add_sweep_flags(sub)


def _add_sweep_flags(sub: argparse.ArgumentParser) -> None:
    options = sub.add_argument_group("sweep")
    options.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KNOB=V1,V2",
        help="a knob and its values (any knob of --help; repeat for a product grid)",
    )
    options.add_argument("--seeds", metavar="LIST|COUNT", help="seeds of every cell (0,1,2 or a count)")
    options.add_argument(
        "--out", required=True, help="the group's folder (a bare name goes under cache/groups)"
    )
    options.add_argument("--ray", action="store_true", help="run the trials as Ray tasks")
    options.add_argument(
        "--address",
        metavar="ADDR",
        help="join this Ray cluster (e.g. auto, 127.0.0.1:6379); implies --ray (default: $RAY_ADDRESS, "
        "else a local Ray)",
    )
    options.add_argument(
        "--cpus-per-trial", type=float, default=1.0, metavar="N", help="CPUs of each Ray trial (default 1)"
    )
    options.add_argument(
        "--gpus-per-trial",
        type=float,
        default=0.0,
        metavar="F",
        help="GPUs of each Ray trial; a fraction shares one (default 0)",
    )
    options.add_argument(
        "--retry-failed",
        action="store_true",
        help="rerun the members of the existing group --out that are not done, with their recorded settings",
    )
    options.add_argument(
        "--threads", type=int, metavar="N", help="CPU threads of torch for local trials (default: torch's)"
    )


def make_group(args: argparse.Namespace) -> groups.Group:
    """A new group from the flags: the experiment's settings as the base, the grid (and seeds) as members,
    every member's settings checked before anything runs."""
    experiment = EXPERIMENTS[args.experiment]
    config_class = experiment.load(experiment.config_class)
    config = importlib.import_module(experiment.cli).config_from_args(args)
    if getattr(config, "save_encoder", None):
        raise ConfigError("--save-encoder: the runs of a sweep would overwrite one encoder; sweep without it")
    grid = parse_grid(config_class, args.grid)
    if args.seeds:
        if "seed" in grid:
            raise ConfigError("--seeds: the seed is already a --grid knob; give it once")
        grid["seed"] = flags.parse_seeds(args.seeds)
    if not grid:
        raise ConfigError("--grid: give at least one knob to vary (e.g. --grid lr=1e-3,1e-2) or --seeds")
    base = asdict(config)
    for member in grid_members(grid):
        try:
            experiment.make_config(**{**base, **member.params})
        except ConfigError as err:
            raise ConfigError(f"--grid {groups.cell_label(member.params)}: {one_line(err)}") from None
    return groups.create_group(groups.group_path(args.out), args.experiment, base, grid)


def executor_of(args: argparse.Namespace) -> groups.Executor:
    if args.ray or args.address:
        from engine.sweep.ray_run import RayExecutor, require_ray

        require_ray()
        return RayExecutor(args.address, args.cpus_per_trial, args.gpus_per_trial)
    return groups.LocalExecutor(threads=args.threads)


def run(args: argparse.Namespace) -> int:
    """The sweep: make (or, with ``--retry-failed``, read) the group, run it, print its summary."""
    executor = executor_of(args)
    if args.retry_failed:
        if args.grid or args.seeds:
            raise ConfigError("--retry-failed reruns the group as it was made: leave out --grid and --seeds")
        group = groups.read_group(groups.group_path(args.out))
        if group.kind != args.experiment:
            raise ConfigError(f"--retry-failed: {group.path} is a {group.kind} group, not {args.experiment}")
    else:
        group = make_group(args)
    todo = groups.pending(group, retry_failed=True)
    print(f"group {group.path}: {len(todo)} of {len(group.members)} runs to go", file=sys.stderr, flush=True)
    group = groups.run_group(group, executor, retry_failed=args.retry_failed)
    print(groups.format_summary(groups.summarise(group, write=False)))
    failed = [m for m in group.members if m.status == "failed"]
    for member in failed:
        print(f"failed: {member.id}: {member.error}", file=sys.stderr)
    if failed:
        print(f"rerun the failed ones: add --retry-failed (same --out {args.out})", file=sys.stderr)
    return EXIT_FAILED if failed else 0
