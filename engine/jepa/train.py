"""JEPA training, one step at a time: the ``train_jepa`` generator and the summary of a run.

Read in this order: the settings (config.py), the views (augmentations.py), the objective (losses.py,
networks.py), one training step (step.py), the evaluation (evaluation.py), then :func:`train_jepa` here, the
training core's run (:func:`engine.training.loop.run_training`) with JEPA's trainer and evaluator:

    Trainer.step (views → online and target forwards → loss → AdamW → EMA update)
    → every ``eval_every`` steps: CollapseEvaluator (the training core's measures and the collapse lens)

The conventions are the training core's (:mod:`engine.training.loop`): step 0 evaluates the encoder before any
update; ``seconds`` / ``eval_seconds`` are cumulative training / evaluation times; an evaluated row carries
the spectrum, a snapshot row the embeddings of the probe (else evaluation) sentences; the data sets are
loaded by :mod:`engine.training.data`; under torchrun only rank 0 evaluates.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from engine.jepa.augmentations import describe
from engine.jepa.config import COLLAPSE_COLUMNS, JEPAConfig
from engine.jepa.evaluation import CollapseEvaluator
from engine.jepa.step import make_trainer
from engine.runlog.events import Event
from engine.training.loop import run_training
from engine.training.summary import summary_columns, training_summary


def train_jepa(config: JEPAConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Train with the JEPA objective; yield one metrics row per step (evaluation every ``eval_every``)."""
    return run_training(config, stop, make_trainer, CollapseEvaluator)


#: columns whose first and last logged values the summary reports (``<column>_start`` / ``<column>_end``)
SUMMARY_COLUMNS = summary_columns(COLLAPSE_COLUMNS)


def summarize(rows: list[dict[str, Any]], config: JEPAConfig) -> dict[str, Any]:
    """Start / end of the evaluation measures (RankMe among them), best STS, loss at start and
    end, the time split, the views, the evaluation set and the precision
    (:func:`engine.training.summary.training_summary`)."""
    return training_summary(rows, config, describe(config), SUMMARY_COLUMNS)
