"""SimCSE training, one step at a time (Gao, Yao & Chen 2021, arXiv 2104.08821; princeton-nlp/SimCSE).

Read in this order: the settings (config.py), the data (datasets.py), one training step (step.py), the
evaluation (evaluation.py), then :func:`train_simcse` here, whose loop is

    Trainer.step (views → one forward of all views → all-gather → loss → AdamW with linear decay)
    → every ``eval_every`` steps: Evaluator (alignment, uniformity, STS Spearman, the isotropy family)

Conventions:
- step 0 is an evaluation of the encoder before any update; steps 1..N each follow one update;
- ``seconds`` is the cumulative training time, ``eval_seconds`` the cumulative evaluation time (apart);
- an evaluated row carries the evaluation sentences' covariance spectrum (``Row.spectrum``), which the
  runner writes to ``spectrum.csv``; a snapshot row the embeddings of the probe (else evaluation) sentences;
- hyper-parameters as the paper's unsup BERT-base run (batch 64, lr 3e-5, max length 32, τ 0.05);
- the summary names the evaluation set (``eval_set``, e.g. ``stsb-dev (250 of 1,500 pairs)`` or the demo
  pairs when there is no data folder) and the precision the run trained in.

The names of the other modules are re-exported here (``from engine.simcse.train import SimCSEConfig, ...``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Generator, Iterator
from dataclasses import asdict
from typing import Any

import numpy as np
import torch

from engine import stopping
from engine.device import precision_name, resolve_device, seed_everything, timed
from engine.errors import ConfigError, one_line
from engine.events import Event, Meter, Points, Progress, Row, relay
from engine.simcse import distributed
from engine.simcse.baseline import resolve_pooler, sts_baseline
from engine.simcse.config import (
    BASE_COLUMNS,
    GEOMETRY_COLUMNS,
    MAX_STEPS,
    MODES,
    POOLER_CHOICES,
    PROBE_COLUMNS,
    SimCSEConfig,
    is_eval_step,
    is_snapshot_step,
)
from engine.simcse.datasets import (
    BatchSampler,
    EvalSet,
    default_sets,
    eval_set_label,
    load_eval,
    load_probe,
    load_training,
)
from engine.simcse.evaluation import EVAL_BATCH, Evaluator, evaluate, geometry
from engine.simcse.step import (
    Towers,
    Trainer,
    build_encoder,
    contrastive_loss,
    encode_views,
    length_buckets,
    make_trainer,
    view_groups,
)
from engine.simcse.views import plan_of

__all__ = [
    "BASE_COLUMNS",
    "EVAL_BATCH",
    "GEOMETRY_COLUMNS",
    "MAX_STEPS",
    "MODES",
    "POOLER_CHOICES",
    "PROBE_COLUMNS",
    "BatchSampler",
    "EvalSet",
    "Evaluator",
    "SimCSEConfig",
    "Towers",
    "Trainer",
    "build_encoder",
    "contrastive_loss",
    "default_sets",
    "encode_views",
    "eval_set_label",
    "evaluate",
    "geometry",
    "is_eval_step",
    "is_snapshot_step",
    "length_buckets",
    "load_eval",
    "load_probe",
    "load_training",
    "make_trainer",
    "save_trained",
    "summarize",
    "train_simcse",
    "view_groups",
]


def train_simcse(config: SimCSEConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train SimCSE; yield one metrics row per step (evaluation every ``eval_every`` steps).

    Under torchrun every process runs this generator; only rank 0 evaluates and yields evaluation rows
    (see :mod:`engine.simcse.distributed`).
    """
    stop = stop or threading.Event()
    seed_everything(config.seed)
    world, device = distributed.setup(resolve_device(config.device))
    try:
        yield from _train(config, stop, world, device)
    finally:
        distributed.shutdown(world)


def _train(
    config: SimCSEConfig, stop: threading.Event, world: distributed.World, device: torch.device
) -> Iterator[Event]:
    if config.save_encoder and world.is_main:  # a taken or reserved name fails now, not after the training
        from engine.encoders.store import check_save_name

        check_save_name(config.save_encoder, overwrite=config.replace_encoder)
    yield Progress("loading data", 0.0)
    try:
        # a stop while reading data ends the set-up at its next chunk (one process: several would have to
        # agree first, which the check after the set-up does)
        with stopping.watching(stop if world.size == 1 else None):
            data = load_training(config)
            stopping.check()
            evalset = load_eval(config)
            probe = load_probe(config)
            stopping.check()
    except stopping.Stopped:
        return
    yield Progress("loading encoder", 0.5)
    trainer = make_trainer(config, data, world, device)
    evaluator = (
        Evaluator(trainer.encoder, evalset, probe, precision=config.precision) if world.is_main else None
    )
    if distributed.any_rank(stop.is_set(), world, device):
        return
    if config.snapshot_every and world.is_main:
        if probe is not None:
            yield Points(list(probe.texts), [str(x) for x in probe.labels])
        else:
            yield Points(list(evalset.sentences), None)
    yield Progress("training", 1.0)

    last_eval = yield from training_rows(trainer, evaluator, config, world, device, stop)
    if last_eval is not None and config.save_encoder and world.is_main:  # a stopped run saves nothing
        yield Progress("saving encoder", 1.0)
        save_trained(trainer.encoder, config, last_eval)


def training_rows(
    trainer: Any,
    evaluator: Any,
    config: Any,
    world: distributed.World,
    device: torch.device,
    stop: threading.Event,
) -> Generator[Event, None, dict[str, Any] | None]:
    """The training loop SimCSE and JEPA share: one :class:`~engine.events.Row` per step (0 is the untouched
    encoder), ``trainer.step(step)`` giving the loss, ``evaluator(stop)`` (main process only) on the
    evaluation steps with its points kept on the snapshot steps; the ``seconds`` and ``eval_seconds`` columns
    count training and evaluation apart. Returns the last evaluation's values (the saved encoder's card), or
    None when it ended early, after a step where any process was asked to stop."""
    train_seconds = eval_seconds = 0.0
    last_eval: dict[str, Any] = {}
    for step in range(config.steps + 1):
        row: dict[str, Any] = {}
        snapshot = spectrum = None
        if step > 0:
            with timed(device) as took:
                row["loss"] = trainer.step(step)
            train_seconds += took[0]
        row["seconds"] = train_seconds
        if evaluator is not None and is_eval_step(step, config):
            with timed(device) as took:
                if step == 0:  # before the first row, seen as set-up: counted, with rate and time left
                    result = yield from first_evaluation(evaluator, stop)
                else:
                    result = evaluator(stop)
            eval_seconds += took[0]
            row["eval_seconds"] = eval_seconds
            if result is not None:
                points_now, spectrum = result.pop("_points"), result.pop("_spectrum")
                row.update(result)
                last_eval = {k: v for k, v in result.items() if v is not None}
                if is_snapshot_step(step, config):
                    snapshot = points_now
        yield Row(step, row, snapshot, spectrum=spectrum)
        if distributed.any_rank(stop.is_set(), world, device):
            return None
    return last_eval


def first_evaluation(evaluator: Any, stop: threading.Event) -> Generator[Event, None, dict[str, Any] | None]:
    """The untouched encoder's evaluation (row 0): its sentences encoded in a helper thread while this yields
    their count, rate and time left as :class:`~engine.events.Progress` ("evaluating the untouched encoder
    1,024/1,500 sentences · 180/s · 3 s left")."""
    meter = Meter("evaluating the untouched encoder", "sentences")
    return (yield from relay(lambda report: evaluator(stop, lambda done, total: report(meter(done, total)))))


def save_trained(encoder: Any, config: SimCSEConfig, final: dict[str, Any]) -> Any:
    """Save to ``cache/encoders/<save_encoder>`` with a card (base model, data, switches, steps, metrics)."""
    from engine.encoders import save_encoder

    train, evaluation = default_sets(config)
    card = {
        "method": "SimCSE (Gao, Yao & Chen 2021)",
        "base_model": getattr(encoder, "base_model", encoder.name),
        "mode": config.mode,
        "train_data": train,
        "views": plan_of(config).describe(),
        "pooler": resolve_pooler(config.pooler, config.encoder),
        "steps": config.steps,
        "evaluation": evaluation,
        "final_metrics": final,
        "config": asdict(config),
    }
    return save_encoder(encoder, config.save_encoder, card, overwrite=config.replace_encoder)


#: columns whose first and last logged values the summary reports (``<column>_start`` / ``<column>_end``)
SUMMARY_COLUMNS = ("sts_spearman", "alignment", "uniformity", "isoscore", *GEOMETRY_COLUMNS, *PROBE_COLUMNS)


def summarize(rows: list[dict[str, Any]], config: SimCSEConfig) -> dict[str, Any]:
    """Start / end / best STS Spearman, start / end of the other evaluation metrics, loss at start and end,
    time split, the evaluation set and the precision, and the untouched encoder's reference STS."""
    out = training_summary(rows, config, plan_of(config).describe(), SUMMARY_COLUMNS)
    out.update(_reference(config))
    return out


def training_summary(
    rows: list[dict[str, Any]], config: Any, views: str, columns: tuple[str, ...]
) -> dict[str, Any]:
    """The summary of a run that trains an encoder on views of sentences (SimCSE, JEPA): its views, data
    sets, evaluation set and precision; start / end of ``columns``; best STS Spearman; loss at start and
    mean of the last 10; the time split between training and evaluation."""

    def series(column: str) -> list[tuple[int, float]]:
        return [
            (int(r["step"]), float(r[column]))
            for r in rows
            if r.get(column) is not None and math.isfinite(float(r[column]))
        ]

    out: dict[str, Any] = {"views": views, "train_and_eval": list(default_sets(config))}
    try:
        out["eval_set"] = eval_set_label(config)
    except Exception as err:  # noqa: BLE001 - the label must never lose a summary
        out["eval_set"] = f"{default_sets(config)[1]} (unreadable: {one_line(err)})"
    try:
        out["precision"] = precision_name(resolve_device(config.device), config.precision)
    except ConfigError:
        out["precision"] = config.precision
    for column in columns:
        values = series(column)
        if values:
            out[f"{column}_start"], out[f"{column}_end"] = values[0][1], values[-1][1]
    sts = series("sts_spearman")
    if sts:
        out["best_step"], out["sts_spearman_best"] = max(sts, key=lambda item: item[1])
    losses = [value for _, value in series("loss")]
    if losses:
        out["loss_first"], out["loss_last10"] = losses[0], float(np.mean(losses[-10:]))
    train_s = max((value for _, value in series("seconds")), default=0.0)
    eval_s = max((value for _, value in series("eval_seconds")), default=0.0)
    out.update(
        train_seconds=train_s, eval_seconds=eval_s, eval_overhead=eval_s / train_s if train_s else None
    )
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
