"""The four runs of SimCSE's Figure 2 in one command (unsup SimCSE, no dropout, fixed 0.1, delete one word).

    python -m engine.simcse.figure2_runs --data-dir ../shared/data --out DIR [--steps N] [--encoder E]
    python scripts/plot_figure2.py DIR/* --out figure2.png

Each run goes to ``DIR/<run>/`` through :func:`engine.runner.run_experiment` (metrics.csv, config.json,
summary.json), evaluated every 10 steps on STS-B dev as in the paper (alignment on gold > 4 pairs,
uniformity over all evaluation sentences). The presets are :data:`engine.simcse.views.FIGURE2_RUNS`.
``--probe demo --snapshot-every 10`` adds what the app's "SimCSE Figure 2" preset adds.

OpenMP threads wait passively here (``OMP_WAIT_POLICY=PASSIVE`` unless set in the environment; the setting
``omp_wait_policy``, :func:`engine.settings.apply_openmp_wait_policy`): on a shared CPU, threads that spin at
every op's barrier while their sibling is descheduled slow the steps down (docs/performance.md); the policy is
read when torch loads, so it is set before any import of it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine import settings

settings.apply_openmp_wait_policy()  # before torch is imported (see the module docstring)

from engine.device import PRECISIONS  # noqa: E402 - after the OpenMP policy
from engine.errors import EmbedlabError, one_line  # noqa: E402
from engine.simcse.train import SimCSEConfig  # noqa: E402
from engine.simcse.views import FIGURE2_RUNS  # noqa: E402


def figure2_configs(base: dict[str, Any], runs: list[str] | None = None) -> dict[str, SimCSEConfig]:
    """One validated config per Figure-2 run: the shared settings ``base`` plus the run's overrides."""
    names = runs or list(FIGURE2_RUNS)
    unknown = [name for name in names if name not in FIGURE2_RUNS]
    if unknown:
        raise EmbedlabError(f"unknown Figure-2 run(s) {unknown}: choose from {', '.join(FIGURE2_RUNS)}")
    return {name: SimCSEConfig(**{**base, **FIGURE2_RUNS[name]}) for name in names}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.simcse.figure2_runs", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="folder with wiki/ and stsb/ (e.g. ../shared/data)")
    parser.add_argument("--out", required=True, help="folder receiving one run folder per variant")
    parser.add_argument("--steps", type=int, default=250)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--eval-limit", type=int, default=250, help="STS-B dev pairs evaluated (0: all 1,500)")
    parser.add_argument("--eval-every", type=int, default=10)
    parser.add_argument("--encoder", help="default: the bundled all-MiniLM-L6-v2; paper: bert-base-uncased")
    parser.add_argument("--pooler", default="cls", help="cls (paper), cls-mlp or avg")
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--precision", choices=PRECISIONS, default=SimCSEConfig.precision,
                        help="auto: bf16 autocast where the hardware has it (CUDA, CPUs with AVX512-BF16/AMX); fp32")
    parser.add_argument("--probe", help="labelled set for probe silhouette / IsoScore (the app's preset: demo)")
    parser.add_argument("--snapshot-every", type=int, default=0, help="embedding snapshots every k steps (app: 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", nargs="*", help=f"subset of {', '.join(FIGURE2_RUNS)}")
    args = parser.parse_args(argv)
    from engine.runner import run_experiment

    base = dict(
        mode="unsup", train="wiki1m", data_dir=args.data_dir, eval="stsb", steps=args.steps,
        batch_size=args.batch_size, eval_limit=args.eval_limit or None, eval_every=args.eval_every,
        encoder=args.encoder, pooler=args.pooler, lr=args.lr, device=args.device, seed=args.seed,
        precision=args.precision, probe=args.probe, snapshot_every=args.snapshot_every,
    )
    try:
        configs = figure2_configs(base, args.runs)
        results = {}
        for name, config in configs.items():
            print(f"[figure2] {name}: {FIGURE2_RUNS[name] or 'defaults'}", file=sys.stderr, flush=True)
            summary = run_experiment("simcse", config, Path(args.out) / name)
            results[name] = {k: summary.get(k) for k in (
                "state", "sts_spearman_start", "sts_spearman_end", "sts_spearman_best", "alignment_start",
                "alignment_end", "uniformity_start", "uniformity_end", "loss_last10", "train_seconds", "eval_seconds",
                "wall_seconds", "eval_set", "precision",
            )}
    except EmbedlabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        return 2
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
