"""``python -m engine sweep EXPERIMENT --grid KNOB=V1,V2 [--grid …] [--seeds …] [its options] --out GROUP
[--ray] [--address ADDR] [--cpus-per-trial N] [--gpus-per-trial F] [--ray-cpus N] [--retry-failed]``.

The grid's runs form a group (:mod:`engine.groups`); they run one by one in this process, or with ``--ray``
on a pool of warm Ray workers, one per trial slot (:mod:`engine.sweep.ray_run`; ``--address`` joins a running
Ray and implies ``--ray``; without it a local Ray of ``--ray-cpus`` CPUs is started and shut down).
``--retry-failed`` reruns the members of an existing group that are not done (failed, or left queued or
running by a process that ended), each with its recorded settings; a member whose folder holds its finished
run is marked done, not run again. One process runs a group at a time (:mod:`engine.groups.lock`): a second
is refused in one line naming the first's pid. Exit 0 when every member is done, 1 when one failed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from engine import groups
from engine.command.signals import interrupting
from engine.core import flags
from engine.core.errors import ConfigError, one_line
from engine.experiments import EXPERIMENTS
from engine.groups.format import MemberStatus, grid_members
from engine.groups.lock import refusal
from engine.sweep.grid import check_files, parse_grid

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
        sub = kinds.add_parser(kind, help=experiment.title, description=f"A sweep of {experiment.title}")
        experiment.command_line.add_arguments(sub)
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
    flags.add_seeds_flag(options, "seeds of every cell (0,1,2 or a count)")
    options.add_argument(
        "--out", required=True, help="the group's folder (a bare name goes under cache/groups)"
    )
    options.add_argument(
        "--ray", action="store_true", help="run the trials on Ray: a pool of warm workers, one per trial slot"
    )
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
        "--ray-cpus",
        type=int,
        metavar="N",
        help="CPUs of the local Ray that a sweep without --address starts (default: all of this machine's)",
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


def plan_group(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The new group's base (the experiment's settings) and grid (and seeds) from the flags, every member's
    settings checked (its data files included) before any folder is made."""
    experiment = EXPERIMENTS[args.experiment]
    config_class = experiment.config_class
    config = experiment.command_line.config_from_args(args)
    if getattr(config, "save_encoder", None):
        raise ConfigError("--save-encoder: the runs of a sweep would overwrite one encoder; sweep without it")
    grid = parse_grid(config_class, args.grid)
    if args.seeds is not None:
        if "seed" in grid:
            raise ConfigError("--seeds: the seed is already a --grid knob; give it once")
        grid["seed"] = flags.parse_seeds(args.seeds)
    if not grid:
        raise ConfigError("--grid: give at least one knob to vary (e.g. --grid lr=1e-3,1e-2) or --seeds")
    base = asdict(config)
    check_files(config_class, {k: v for k, v in base.items() if k not in grid})
    for member in grid_members(grid):
        try:
            experiment.make_config(**{**base, **member.params})
        except ConfigError as err:
            raise ConfigError(f"--grid {groups.cell_label(member.params)}: {one_line(err)}") from None
    for knob, values in grid.items():
        for value in values:
            check_files(config_class, {knob: value}, f"--grid {knob}={value}")
    return base, grid


def make_group(args: argparse.Namespace) -> groups.Group:
    """A new group from the flags (:func:`plan_group`), written to ``--out``."""
    base, grid = plan_group(args)
    return groups.create_group(groups.group_path(args.out), args.experiment, base, grid)


def executor_of(args: argparse.Namespace) -> groups.Executor:
    if args.ray or args.address:
        from engine.sweep.ray_run import RayExecutor, require_ray

        require_ray()
        if args.ray_cpus is not None and args.ray_cpus < 1:
            raise ConfigError(f"--ray-cpus must be 1 or more, got {args.ray_cpus}")
        executor = RayExecutor(args.address, args.cpus_per_trial, args.gpus_per_trial, args.ray_cpus)
        executor.connect()  # an unreachable cluster is refused before the group is written
        return executor
    return groups.LocalExecutor(threads=args.threads)


def _read_group(args: argparse.Namespace) -> groups.Group:
    group = groups.read_group(groups.group_path(args.out))
    if group.kind != args.experiment:
        raise ConfigError(f"--retry-failed: {group.path} is a {group.kind} group, not {args.experiment}")
    return group


def run(args: argparse.Namespace) -> int:
    """The sweep: make (or, with ``--retry-failed``, read) the group under its runner lock (a second runner
    of the group is refused), reconcile it with its run folders, run it, print its summary."""
    if args.retry_failed and (args.grid or args.seeds is not None):
        raise ConfigError("--retry-failed reruns the group as it was made: leave out --grid and --seeds")
    plan = None if args.retry_failed else plan_group(args)
    if plan is None:  # a folder with no group is refused before anything is made there
        if groups.runner_alive(groups.group_path(args.out)):
            raise refusal(groups.group_path(args.out))  # being made by a runner that lives
        _read_group(args)
    executor = executor_of(args)
    try:
        folder = groups.group_path(args.out)
        # Ctrl-C and SIGTERM stop the current trial, recorded (retryable); one runner per group
        with interrupting(), groups.holding(folder):
            # a group to retry is read again under the lock: as its last runner left it
            group = _read_group(args) if plan is None else groups.create_group(folder, args.experiment, *plan)
            group = groups.reconcile(group)
            todo = groups.pending(group, retry_failed=True)
            print(
                f"group {group.path}: {len(todo)} of {len(group.members)} runs to go",
                file=sys.stderr,
                flush=True,
            )
            group = groups.run_group(group, executor, retry_failed=args.retry_failed)
    finally:
        if hasattr(executor, "close"):
            executor.close()
    print(groups.format_summary(groups.summarise(group, write=False)))
    failed = [m for m in group.members if m.status == MemberStatus.FAILED]
    for member in failed:
        print(f"failed: {member.id}: {member.error}", file=sys.stderr)
    if failed:
        print(f"rerun the failed ones: add --retry-failed (same --out {args.out})", file=sys.stderr)
    return EXIT_FAILED if failed else 0
