"""JEPA training, one step at a time: the ``train_jepa`` generator and the summary of a run.

Read in this order: the settings (config.py), the views (views.py), the objective (losses.py, networks.py),
one training step (step.py), the evaluation (evaluation.py), then :func:`train_jepa` here, whose loop is

    Trainer.step (views → online and target forwards → loss → AdamW → EMA update)
    → every ``eval_every`` steps: CollapseEvaluator (SimCSE's measures and the collapse lens)

The conventions are SimCSE's (:mod:`engine.simcse.train`): step 0 evaluates the encoder before any update;
``seconds`` / ``eval_seconds`` are cumulative training / evaluation times; an evaluated row carries the
spectrum, a snapshot row the embeddings of the probe (else evaluation) sentences; the data sets are loaded
by SimCSE's :mod:`engine.simcse.datasets`; under torchrun only rank 0 evaluates.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import torch

from engine.device import resolve_device, seed_everything
from engine.events import Event, Points, Progress
from engine.jepa.config import COLLAPSE_COLUMNS, JEPAConfig
from engine.jepa.evaluation import CollapseEvaluator
from engine.jepa.step import make_trainer
from engine.jepa.views import describe
from engine.simcse import distributed
from engine.simcse.config import GEOMETRY_COLUMNS, PROBE_COLUMNS
from engine.simcse.datasets import load_eval, load_probe, load_training
from engine.simcse.train import training_rows, training_summary


def train_jepa(config: JEPAConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train with the JEPA objective; yield one metrics row per step (evaluation every ``eval_every``)."""
    stop = stop or threading.Event()
    seed_everything(config.seed)
    world, device = distributed.setup(resolve_device(config.device))
    try:
        yield from _train(config, stop, world, device)
    finally:
        distributed.shutdown(world)


def _train(
    config: JEPAConfig, stop: threading.Event, world: distributed.World, device: torch.device
) -> Iterator[Event]:
    yield Progress("loading data", 0.0)
    data = load_training(config)
    evalset = load_eval(config)
    probe = load_probe(config)
    yield Progress("loading encoder", 0.5)
    trainer = make_trainer(config, data, world, device)
    evaluator = (
        CollapseEvaluator(trainer.encoder, evalset, probe, precision=config.precision)
        if world.is_main
        else None
    )
    if config.snapshot_every and world.is_main:
        if probe is not None:
            yield Points(list(probe.texts), [str(x) for x in probe.labels])
        else:
            yield Points(list(evalset.sentences), None)
    yield Progress("training", 1.0)
    yield from training_rows(trainer, evaluator, config, world, device, stop)


#: columns whose first and last logged values the summary reports (``<column>_start`` / ``<column>_end``)
SUMMARY_COLUMNS = (
    "sts_spearman",
    "alignment",
    "uniformity",
    "isoscore",
    *GEOMETRY_COLUMNS,
    *COLLAPSE_COLUMNS,
    *PROBE_COLUMNS,
)


def summarize(rows: list[dict[str, Any]], config: JEPAConfig) -> dict[str, Any]:
    """Start / end of the evaluation measures (RankMe as ``effective_rank``), best STS, loss at start and
    end, the time split, the views, the evaluation set and the precision
    (:func:`engine.simcse.train.training_summary`)."""
    return training_summary(rows, config, describe(config), SUMMARY_COLUMNS)
