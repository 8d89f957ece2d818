"""The run of an encoder in training, shared by SimCSE and JEPA: the set-up (:func:`run_training`) and the
loop of rows (:func:`training_rows`).

    seed → torchrun's process group → data (a stop while reading it ends the set-up) → trainer and evaluator
    → Points (the projected sentences, with snapshots) → rows: trainer.step(step), every ``eval_every``
    steps the evaluator → what the experiment does after a finished run (SimCSE: save the encoder)

Conventions:
- step 0 is an evaluation of the encoder before any update; steps 1..N each follow one update;
- ``seconds`` is the cumulative training time, ``eval_seconds`` the cumulative evaluation time (apart);
- an evaluated row carries the evaluation sentences' covariance spectrum (``Row.spectrum``), which the
  runner writes to ``spectrum.csv``; a snapshot row the embeddings of the probe (else evaluation) sentences;
- under torchrun every process runs the generator; only rank 0 (the main process) evaluates and yields
  evaluation rows, and the stop flag is shared once per step (:func:`engine.training.distributed.any_rank`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any

import torch

from engine.compute.device import resolve_device, seed_everything, timed
from engine.core import stopping
from engine.runlog.events import Event, Meter, Points, Progress, Row, relay
from engine.training import distributed
from engine.training.config import TrainingConfig, is_eval_step, is_snapshot_step
from engine.training.data import load_eval, load_labelled_set, load_training
from engine.training.evaluation import Evaluator

#: ``make(config, data, world, device)`` -> the trainer (its ``encoder``, ``step(step) -> loss``)
MakeTrainer = Callable[[Any, Any, distributed.World, torch.device], Any]
#: ``finish(trainer, last evaluation)``: the main process's work after a run that was not stopped
Finish = Callable[[Any, dict[str, Any]], Iterator[Event]]


def run_training(
    config: TrainingConfig,
    stop: threading.Event | None,
    make_trainer: MakeTrainer,
    evaluator: type[Evaluator] = Evaluator,
    *,
    check: Callable[[], None] | None = None,
    finish: Finish | None = None,
) -> Iterator[Event]:
    """Train the encoder of ``config``; yield one metrics row per step (evaluation every ``eval_every``).

    ``make_trainer`` builds the experiment's trainer, ``evaluator`` its evaluator (main process only);
    ``check`` runs on the main process before the data is read (a setting that would fail only at the end
    fails now), ``finish`` after a run that was not stopped (its events are yielded)."""
    stop = stop or threading.Event()
    seed_everything(config.seed)
    world, device = distributed.setup(resolve_device(config.device))
    try:
        yield from _train(config, stop, world, device, make_trainer, evaluator, check, finish)
    finally:
        distributed.shutdown(world)


def _train(
    config: TrainingConfig,
    stop: threading.Event,
    world: distributed.World,
    device: torch.device,
    make_trainer: MakeTrainer,
    evaluator_class: type[Evaluator],
    check: Callable[[], None] | None,
    finish: Finish | None,
) -> Iterator[Event]:
    if check is not None and world.is_main:
        check()
    yield Progress("loading data", 0.0)
    try:
        # a stop while reading data ends the set-up at its next chunk (one process: several would have to
        # agree first, which the check after the set-up does)
        with stopping.watching(stop if world.size == 1 else None):
            data = load_training(config)
            stopping.check()
            evalset = load_eval(config)
            probe = load_labelled_set(config)
            stopping.check()
    except stopping.Stopped:
        return
    yield Progress("loading encoder", 0.5)
    trainer = make_trainer(config, data, world, device)
    evaluator = (
        evaluator_class(trainer.encoder, evalset, probe, precision=config.precision)
        if world.is_main
        else None
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
    if last_eval is not None and finish is not None and world.is_main:  # a stopped run finishes nothing
        yield from finish(trainer, last_eval)


def training_rows(
    trainer: Any,
    evaluator: Any,
    config: TrainingConfig,
    world: distributed.World,
    device: torch.device,
    stop: threading.Event,
) -> Generator[Event, None, dict[str, Any] | None]:
    """The training loop: one :class:`~engine.runlog.events.Row` per step (0 is the untouched encoder),
    ``trainer.step(step)`` giving the loss, ``evaluator(stop)`` (main process only) on the evaluation steps
    with its points kept on the snapshot steps; the ``seconds`` and ``eval_seconds`` columns count training
    and evaluation apart. Returns the last evaluation's values (the saved encoder's card), or None when it
    ended early, after a step where any process was asked to stop."""
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
    their count, rate and time left as :class:`~engine.runlog.events.Progress` ("evaluating the untouched
    encoder 1,024/1,500 sentences · 180/s · 3 s left")."""
    meter = Meter("evaluating the untouched encoder", "sentences")
    return (yield from relay(lambda report: evaluator(stop, lambda done, total: report(meter(done, total)))))
