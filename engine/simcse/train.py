"""SimCSE training, one step at a time (Gao, Yao & Chen 2021, arXiv 2104.08821; princeton-nlp/SimCSE).

Read in this order: the settings (config.py), the views (augmentations.py), one training step (step.py, on the
training core's data, towers and trainer: :mod:`engine.training`), then :func:`train_simcse` here, the
training core's run (:func:`engine.training.loop.run_training`) with SimCSE's trainer:

    Trainer.step (views → one forward of all views → all-gather → loss → AdamW with linear decay)
    → every ``eval_every`` steps: Evaluator (alignment, uniformity, STS Spearman, the isotropy family)
    → a finished run with ``save_encoder``: the encoder saved with its card

Conventions are the training core's (step 0 evaluates the untouched encoder; ``seconds`` / ``eval_seconds``
apart); hyper-parameters as the paper's unsup BERT-base run (batch 64, lr 3e-5, max length 32, τ 0.05); the
summary names the evaluation set (``eval_set``, e.g. ``stsb-dev (250 of 1,500 pairs)`` or the demo pairs
when there is no data folder), the precision the run trained in, and the untouched encoder's STS.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from engine.core.errors import one_line
from engine.runlog.events import Event, Progress
from engine.simcse.augmentations import plan_of
from engine.simcse.baseline import sts_baseline
from engine.simcse.config import SimCSEConfig
from engine.simcse.step import make_trainer
from engine.training.data import default_sets
from engine.training.encoder import resolve_pooler
from engine.training.loop import run_training
from engine.training.summary import summary_columns, training_summary


def train_simcse(config: SimCSEConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train SimCSE; yield one metrics row per step (evaluation every ``eval_every`` steps).

    Under torchrun every process runs this generator; only rank 0 evaluates and yields evaluation rows
    (see :mod:`engine.training.distributed`). A taken or reserved ``save_encoder`` name fails before the
    training, a finished run saves the encoder (a stopped one saves nothing)."""
    if not config.save_encoder:
        return run_training(config, stop, make_trainer)

    def check() -> None:
        from engine.encoders.store import check_save_name

        check_save_name(config.save_encoder, overwrite=config.replace_encoder)

    def finish(trainer: Any, last_eval: dict[str, Any]) -> Iterator[Event]:
        yield Progress("saving encoder", 1.0)
        save_trained(trainer.encoder, config, last_eval, train_size=len(trainer.data))

    return run_training(config, stop, make_trainer, check=check, finish=finish)


def started_from(encoder: str | None) -> str:
    """The encoder a run started from, in the model card's words: a derived start by its name and what it
    is (:mod:`engine.encoders.starts`), else the name or folder as given (the bundled model by name)."""
    from engine.encoders.starts import start_named

    start = start_named(encoder)
    if start is not None:
        return f"{start.name}: {start.about}"
    return encoder or "the bundled all-MiniLM-L6-v2 at its own pooling"


def save_trained(
    encoder: Any, config: SimCSEConfig, final: dict[str, Any], *, train_size: int | None = None
) -> Any:
    """Save to ``cache/encoders/<save_encoder>`` with a card: how it was made (base model, training data and
    its size ``train_size``, steps, batch, learning rate, seed, pooler, precision, the evaluation set and its
    size, the run that made it), its final metrics and the command that makes it again."""
    from engine.encoders import save_encoder
    from engine.runlog.current import current

    train, evaluation = default_sets(config)
    made = current()
    card = {
        "method": "SimCSE (Gao, Yao & Chen 2021)",
        "base_model": getattr(encoder, "base_model", encoder.name),
        "start": started_from(config.encoder),
        "mode": config.mode,
        "train_data": train + (f" (first {config.train_limit:,} examples)" if config.train_limit else ""),
        "views": plan_of(config).describe(),
        "pooler": resolve_pooler(config.pooler, config.encoder),
        "train_size": train_size,
        "train_unit": "sentences" if config.mode == "unsup" else "triples",
        "steps": config.steps,
        "batch_size": config.batch_size,
        "lr": config.lr,
        "seed": config.seed,
        "precision": made_in(config),
        "evaluation": evaluated_on(config, evaluation),
        "run": made,
        "final_metrics": final,
        "config": asdict(config),
        "command": remake_command(config, (made or {}).get("folder")),
    }
    return save_encoder(encoder, config.save_encoder, card, overwrite=config.replace_encoder)


def remake_command(config: SimCSEConfig, folder: str | None) -> str:
    """The one command that trains and saves this encoder again: its run's settings as ``--config-json``
    (without the data folder and device of this machine: the command line's own are taken, and folders
    named by the settings as :func:`engine.encoders.portable.without_local_paths` writes them), into
    ``cache/runs/<folder>`` (the run's own folder name)."""
    import json
    import shlex

    from engine.encoders.portable import without_local_paths

    settings = {k: v for k, v in asdict(config).items() if k not in ("data_dir", "device")}
    words = ["python", "-m", "engine", "simcse", "--config-json"]
    words.append(json.dumps(without_local_paths(settings), sort_keys=True))
    return shlex.join([*words, "--out", f"cache/runs/{folder or config.save_encoder}"])


def made_in(config: SimCSEConfig) -> str:
    """The precision and the device a run trained in, in words (``bf16 autocast on cpu``)."""
    from engine.compute.device import precision_name, resolve_device
    from engine.core.errors import ConfigError

    try:
        device = resolve_device(config.device)
    except ConfigError:
        return config.precision
    return f"{precision_name(device, config.precision)} on {device.type}"


def evaluated_on(config: SimCSEConfig, name: str) -> str:
    """The evaluation set with its size (``stsb-dev (250 of 1,500 pairs)``), else its name."""
    from engine.training.data import eval_set_label

    try:
        return eval_set_label(config)
    except Exception:  # noqa: BLE001 - the card must never lose the encoder
        return name


#: columns whose first and last logged values the summary reports (``<column>_start`` / ``<column>_end``)
SUMMARY_COLUMNS = summary_columns()


def summarize(rows: list[dict[str, Any]], config: SimCSEConfig) -> dict[str, Any]:
    """Start / end / best STS Spearman, start / end of the other evaluation metrics, loss at start and end,
    time split, the evaluation set and the precision, and the untouched encoder's reference STS."""
    out = training_summary(rows, config, plan_of(config).describe(), SUMMARY_COLUMNS)
    out.update(_reference(config))
    return out


def _reference(config: SimCSEConfig) -> dict[str, Any]:
    """``pooler_resolved`` (what ``native`` became) and ``sts_baseline``: the untouched encoder's STS at its
    native pooling on the run's evaluation pairs (:mod:`engine.simcse.baseline`, cached)."""
    out: dict[str, Any] = {}
    try:
        out["pooler_resolved"] = resolve_pooler(config.pooler, config.encoder)
        base = sts_baseline(
            config.encoder,
            config.eval,
            config.eval_limit,
            data_dir=config.data_dir,
            seed=config.seed,
            max_len=config.max_len,
            device=config.device,
        )
        out["sts_baseline"], out["sts_baseline_pooler"] = base["sts_spearman"], base["pooler"]
    except Exception as err:  # noqa: BLE001 - the reference must never lose a summary
        out["sts_baseline_error"] = one_line(err)
    return out
