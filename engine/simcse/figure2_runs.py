"""The four runs of SimCSE's Figure 2 in one command (unsup SimCSE, no dropout, fixed 0.1, delete one word).

    python -m engine.simcse.figure2_runs --data-dir ../shared/data --out DIR [--steps N] [--encoder E]
    python scripts/plot_figure2.py DIR/* --out figure2.png

Each run goes to ``DIR/<run>/`` through :func:`engine.runlog.runner.run_experiment` (metrics.csv, config.json,
summary.json), evaluated every 10 steps on STS-B dev as in the paper (alignment on gold > 4 pairs,
uniformity over all evaluation sentences). The presets are :data:`engine.simcse.augmentations.FIGURE2_RUNS`.
``--probe demo --snapshot-every 10`` adds what the app's "SimCSE Figure 2" preset adds.

The runs train side by side, ``--workers`` processes at once (setting ``figure2_workers``; default one per
CPU, at most one per run; :func:`engine.compute.lanes.plan_workers`), each with ``CPUs // runs going`` torch
threads, the longest runs first (:mod:`engine.runlog.side_by_side`: on this project's 2-core machine two
single-thread runs do 1.3x the steps of one two-thread run). Each run's folder and numbers are those it has
alone (same seed, same batches).

OpenMP threads wait passively here (``OMP_WAIT_POLICY=PASSIVE`` unless set in the environment; the setting
``omp_wait_policy``, :func:`engine.core.settings.apply_openmp_wait_policy`): on a shared CPU, threads that
spin at every op's barrier while their sibling is descheduled slow the steps down (docs/performance.md); the
policy is read when torch loads, so it is set before any import of it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from engine.core import settings

settings.apply_openmp_wait_policy()  # before torch is imported (see the module docstring)

from engine.compute.lanes import plan_workers, usable_cpus  # noqa: E402 - the app's lanes share this plan
from engine.core import flags  # noqa: E402
from engine.core.errors import EmbedlabError, one_line  # noqa: E402
from engine.core.knobs import knob_of  # noqa: E402
from engine.core.setting_checks import check_all  # noqa: E402
from engine.runlog.side_by_side import PlannedRun, run_side_by_side  # noqa: E402
from engine.simcse.augmentations import FIGURE2_RUNS  # noqa: E402
from engine.simcse.config import SimCSEConfig  # noqa: E402
from engine.simcse.entry import EXPERIMENT  # noqa: E402

#: the knobs this command takes as flags (made from their declarations: type, range, choices, help)
KNOBS = (
    "data_dir",
    "steps",
    "batch_size",
    "eval_limit",
    "eval_every",
    "encoder",
    "pooler",
    "lr",
    "device",
    "precision",
    "probe",
    "snapshot_every",
    "seed",
)
#: where Figure 2's defaults differ from the knobs': the lab's stand-in for the paper's raw start, the [CLS]
#: start (engine.encoders.starts; the pooler native reads [CLS] + MLP in training from it, as from a raw BERT:
#: ``--encoder bert-base-uncased``), and the 250 steps its curves follow (the app's default run stops at 100)
DEFAULTS = {"steps": 250, "encoder": "minilm-cls"}


def figure2_configs(base: dict[str, Any], runs: list[str] | None = None) -> dict[str, SimCSEConfig]:
    """One validated config per Figure-2 run: the shared settings ``base`` plus the run's overrides."""
    names = runs or list(FIGURE2_RUNS)
    unknown = [name for name in names if name not in FIGURE2_RUNS]
    if unknown:
        raise EmbedlabError(f"unknown Figure-2 run(s) {unknown}: choose from {', '.join(FIGURE2_RUNS)}")
    return {name: SimCSEConfig(**{**base, **FIGURE2_RUNS[name]}) for name in names}


SUMMARY_KEYS = (
    "state",
    "sts_spearman_start",
    "sts_spearman_end",
    "sts_spearman_best",
    "alignment_start",
    "alignment_end",
    "uniformity_start",
    "uniformity_end",
    "loss_last10",
    "train_seconds",
    "eval_seconds",
    "wall_seconds",
    "eval_set",
    "precision",
)


def longest_first(configs: dict[str, SimCSEConfig]) -> list[str]:
    """Run names, those with two forwards a step first (the same-mask run does one: about half the work),
    so the short run fills the end of the schedule."""
    from engine.simcse.augmentations import plan_of

    return sorted(configs, key=lambda name: plan_of(configs[name]).one_forward)


def _started(name: str) -> str:
    """The line a run prints as it starts: its name and what it changes."""
    return f"[figure2] {name}: {FIGURE2_RUNS[name] or 'defaults'}"


def run_all(configs: dict[str, SimCSEConfig], out: Path, workers: int, cpus: int) -> dict[str, Any]:
    """Every run, ``workers`` at a time (1: in this process, one after another; the longest first:
    :func:`engine.runlog.side_by_side.run_side_by_side`); their summaries' main keys in ``configs`` order."""
    order = longest_first(configs)
    planned = [PlannedRun(EXPERIMENT, configs[name], out / name, _started(name)) for name in order]
    summaries = dict(zip(order, run_side_by_side(planned, workers, cpus), strict=True))
    return {name: {key: summaries[name].get(key) for key in SUMMARY_KEYS} for name in configs}


def build_parser() -> argparse.ArgumentParser:
    """The command's flags: :data:`KNOBS` made from SimCSE's knob declarations (Figure 2's :data:`DEFAULTS`
    where they differ), the output folder, the runs and the workers."""
    parser = argparse.ArgumentParser(
        prog="python -m engine.simcse.figure2_runs", description=__doc__.splitlines()[0]
    )
    for name in KNOBS:
        item = knob_of(SimCSEConfig, name)
        if name in DEFAULTS:
            item = dataclasses.replace(item, default=DEFAULTS[name])
        # the runs train on wiki1m and evaluate on STS-B dev: the data folder holds both
        flags.add_flag(parser, item, **({"required": True} if name == "data_dir" else {}))
    parser.add_argument("--out", required=True, help="folder receiving one run folder per variant")
    parser.add_argument("--runs", nargs="*", help=f"subset of {', '.join(FIGURE2_RUNS)}")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="runs trained at once, each in its own process (default: one per CPU, at most one "
        "per run; 1: one after another in this process)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the Figure-2 runs of the command line ``argv``; 0, or 2 with one error line."""
    args = build_parser().parse_args(argv)

    base = {
        "mode": "unsup",
        "train": "wiki1m",
        "eval": "stsb",
        **{name: knob_of(SimCSEConfig, name).from_shown(getattr(args, name)) for name in KNOBS},
    }
    try:
        check_all()  # every setting first: one line, before any run (issue 47)
        configs = figure2_configs(base, args.runs)
        requested = settings.get("figure2_workers") if args.workers is None else args.workers
        if requested < 0:
            raise EmbedlabError(f"--workers must be 0 (one per CPU) or more, got {requested}")
        cpus = usable_cpus()
        workers, threads = plan_workers(len(configs), requested, cpus)
        print(
            f"[figure2] {len(configs)} runs, {workers} at a time, {threads} thread(s) each", file=sys.stderr
        )
        results = run_all(configs, Path(args.out), workers, cpus)
    except EmbedlabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        return 2
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
