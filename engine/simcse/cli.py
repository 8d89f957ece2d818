"""``python -m engine simcse ...`` flags, and the run itself for one process or a torchrun launch.

:func:`add_arguments` / :func:`config_from_args` are the contract with :mod:`engine.cli` (which adds
``--out`` and ``--force``). :func:`run_cli` is called by ``engine.cli.execute`` instead of its default path:
in a single process it does what the default does; under ``torchrun --nproc_per_node=N -m engine simcse``
rank 0 writes the run folder through :func:`engine.runner.run_experiment` while the other ranks run the same
generator without writing anything (see :mod:`engine.simcse.distributed`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading

from engine import settings
from engine.device import PRECISIONS
from engine.errors import ConfigError
from engine.simcse.distributed import launched_by_torchrun
from engine.simcse.train import MODES, POOLER_CHOICES, SimCSEConfig
from engine.simcse.views import AUGMENTATIONS, VIEWS


def _literal(text: str) -> str:
    """Help text shown as written: argparse formats help with ``%``, so a literal ``%`` must be doubled."""
    return text.replace("%", "%%")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The SimCSE flags and the paper's ablation switches (``--out``/``--force`` come from engine.cli)."""
    add = parser.add_argument
    add("--mode", choices=MODES, default="unsup", help="unsup: two dropout views; sup: NLI triples")
    add(
        "--train",
        help="training set: wiki1m, snli, demo, demo-nli or a file (default: wiki1m/snli if present)",
    )
    add("--data-dir", help="folder of real data sets (default: $EMBEDLAB_DATA_DIR)")
    add("--dropout", type=float, default=0.1, help=_literal(VIEWS["dropout"].explanation) + " (default 0.1)")
    add("--same-mask", action="store_true", help=_literal(VIEWS["same-mask"].explanation))
    add(
        "--augment",
        choices=tuple(AUGMENTATIONS),
        default="none",
        help=_literal(
            "second view: " + "; ".join(f"{k}: {VIEWS[k].explanation}" for k in AUGMENTATIONS if k in VIEWS)
        ),
    )
    add("--augment-rate", type=float, default=0.1, help="k for crop / word-deletion (default 0.1)")
    add(
        "--pooler",
        choices=tuple(POOLER_CHOICES),
        default="cls",
        help="cls: [CLS] + MLP in training only (default); cls-mlp: MLP kept; avg: mean of tokens",
    )
    add(
        "--encoder", help="start from: bundled all-MiniLM-L6-v2 (default), a saved name, a folder or a hub id"
    )
    add("--steps", type=int, default=250, help="training steps (default 250)")
    add("--batch-size", type=int, default=64, help="global batch size (default 64)")
    add("--lr", type=float, default=3e-5, help="AdamW learning rate, linear decay (default 3e-5)")
    add("--max-len", type=int, default=32, help="max tokens per sentence (default 32)")
    add("--temp", type=float, default=0.05, help="temperature τ (default 0.05)")
    add(
        "--hard-negative-weight",
        type=float,
        default=1.0,
        help="sup: α on each anchor's own contradiction (default 1)",
    )
    add("--eval", help="evaluation pairs (default: stsb dev if present, else demo-pairs)")
    add("--eval-limit", type=int, default=250, help="evaluation pairs, seeded subset (default 250; 0: all)")
    add("--eval-every", type=int, default=10, help="evaluate every k steps (default 10)")
    add("--probe", help="labelled set (e.g. demo) for probe silhouette / IsoScore")
    add("--seed", type=int, default=0)
    add("--device", default="auto", help="auto, cpu or cuda[:N] (torchrun: each rank takes cuda:LOCAL_RANK)")
    add(
        "--precision",
        choices=PRECISIONS,
        default=SimCSEConfig.precision,
        help="auto: the forward in bf16 autocast on CUDA and on CPUs with native bf16 (AVX512-BF16/AMX), "
        "evaluation in float32; fp32: float32 everywhere (default auto)",
    )
    add(
        "--save-encoder",
        metavar="NAME",
        help="save the trained encoder as cache/encoders/NAME (an existing one is replaced only with --force)",
    )


def config_from_args(args: argparse.Namespace) -> SimCSEConfig:
    """Build (and validate) the config; bad values raise ConfigError with one line."""
    return SimCSEConfig(
        mode=args.mode,
        train=args.train,
        data_dir=args.data_dir,
        dropout=args.dropout,
        same_mask=bool(args.same_mask),
        augment=args.augment,
        augment_rate=args.augment_rate,
        pooler=args.pooler,
        encoder=args.encoder,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        max_len=args.max_len,
        temp=args.temp,
        hard_negative_weight=args.hard_negative_weight,
        eval=args.eval,
        eval_limit=args.eval_limit or None,
        eval_every=args.eval_every,
        probe=args.probe,
        seed=args.seed,
        device=args.device,
        precision=args.precision,
        save_encoder=args.save_encoder,
        replace_encoder=bool(getattr(args, "force", False)),
    )


def run_cli(args: argparse.Namespace, config: SimCSEConfig) -> int:
    """Run from the CLI: one process as engine.cli does, or rank-aware under torchrun."""
    from engine.cli import EXIT_INTERRUPTED, ProgressBar, _stop_on_sigterm, prepare_out_dir
    from engine.runner import run_experiment
    from engine.simcse.train import train_simcse

    rank = int(os.environ.get("RANK", "0")) if launched_by_torchrun() else 0
    stop = threading.Event()
    _stop_on_sigterm(stop)
    if rank != 0:
        for _ in train_simcse(config, stop):
            pass
        return 0
    if config.save_encoder:
        from engine.encoders.store import check_save_name

        try:
            saved_as = check_save_name(config.save_encoder, overwrite=config.replace_encoder)
        except ConfigError as err:
            raise ConfigError(
                f"--save-encoder: {err}".replace("or allow replacing it", "or pass --force")
            ) from None
        if saved_as != config.save_encoder:
            print(
                f"--save-encoder {config.save_encoder!r}: saved as cache/encoders/{saved_as}", file=sys.stderr
            )
    out_dir = prepare_out_dir(args.out, getattr(args, "force", False))
    progress = ProgressBar(config.steps, enabled=not settings.get("no_progress"))
    try:
        summary = run_experiment("simcse", config, out_dir, stop=stop, on_event=progress)
    finally:
        progress.close()
    print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str), file=sys.stdout)
    return EXIT_INTERRUPTED if summary.get("state") == "stopped" else 0


if __name__ == "__main__":  # pragma: no cover - `python -m engine simcse` is the entry point
    from engine.cli import main

    sys.exit(main(["simcse", *sys.argv[1:]]))
