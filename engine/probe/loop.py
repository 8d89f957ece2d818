"""The optimisation loop: full-batch Adam, one row of measures per logged step (step 0 is before any
update; the row of step s describes the parameters after s updates)."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from engine.compute.device import seed_everything
from engine.core import stopping
from engine.core.errors import ConfigError
from engine.probe.compute import RowTransfer, make_adam, measure_device, pick_device
from engine.probe.config import ProbeConfig
from engine.probe.measure import Clusters, encode_clusters, measure_tensors
from engine.probe.model import EmbeddingClassifier
from engine.probe.objectives import make_objective
from engine.probe.problem import ProbeProblem, build_problem
from engine.runlog.events import Event, Meter, Points, Progress, Row, relay

log = logging.getLogger(__name__)


def run_probe(config: ProbeConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Full-batch Adam on embeddings + linear classifier (or the triplet objective); yields one metrics row
    per logged step. A stop during the set-up (reading, encoding) ends it at the next batch, no row logged."""
    stop = stop or threading.Event()
    generator = seed_everything(config.seed)
    device = pick_device(config.device)
    yield Progress("loading data", 0.0)

    def set_up(report: Callable[[Progress | None], None]) -> ProbeProblem:
        """Read the data and encode it, reporting the sentences encoded (count, rate, time left); the
        encoder is loaded only when its embeddings of the data are not cached (:mod:`engine.encoders.known`)
        and freed once they are made: only the embeddings are trained."""

        def encode(texts: list[str]) -> np.ndarray:
            from engine.encoders.known import encode_by_name  # only sentences need the encoder

            meter = Meter("encoding", "sentences")
            return encode_by_name(
                config.encoder,
                texts,
                pooling=config.pooling,
                device=device,
                progress=lambda done, total: report(meter(done, total)),
                loading=lambda: report(Progress("loading encoder", 0.0)),
                loaded=stopping.check,
            )

        return build_problem(config, encode)

    try:
        with stopping.watching(stop):  # a stop while reading or encoding ends the set-up at its next batch
            problem = yield from relay(set_up)
    except stopping.Stopped:
        return
    for note in problem.notes:
        log.warning("%s", note)
        yield Progress(note, 0.5)
    if config.sample_size is not None and config.sample_size > problem.n_items:
        raise ConfigError(
            f"sample_size {config.sample_size} is larger than the data ({problem.n_items} items)"
        )
    yield Progress("optimising", 1.0)

    model = EmbeddingClassifier(
        torch.from_numpy(problem.embeddings),
        len(problem.class_names) if config.objective == "classifier" else None,
        torch.from_numpy(problem.pairs) if problem.pairs is not None else None,
        copy=not problem.owned,  # an owned N x d array is trained in place: no second copy
    ).to(device)
    targets = torch.from_numpy(problem.targets).to(device)
    clusters = torch.from_numpy(problem.cluster_ids).to(device)
    objective = make_objective(
        config.objective,
        targets=targets,
        clusters=clusters,
        multi_label=problem.multi_label,
        margin=config.margin,
        seed=config.seed,
    )
    optimizer = make_adam(model.parameters(), config.lr, device)
    where = measure_device(device)  # MPS has no float64: its points are measured on the CPU
    measured = clusters.to(where)
    run = _Run(
        config,
        stop,
        device,
        where,
        model,
        objective,
        optimizer,
        measured if config.sample_size is not None else encode_clusters(measured),
        _snapshot_rows(problem, config, generator),
    )
    if run.snapshot_rows is not None:
        texts = [_describe(problem, i) for i in run.snapshot_rows.tolist()]
        labels = [_label_name(problem, i) for i in run.snapshot_rows.tolist()]
        run.snapshot_rows = run.snapshot_rows.to(device)
        yield Points(texts, labels)
    yield from _in_background(partial(_optimise, run), stop, torch.get_num_threads(), device)


@dataclass
class _Run:
    """What the optimisation works on, made by :func:`run_probe`'s set-up."""

    config: ProbeConfig
    stop: threading.Event
    device: torch.device
    where: torch.device  # where the measures run (:func:`engine.probe.compute.measure_device`)
    model: EmbeddingClassifier
    objective: Any
    optimizer: torch.optim.Optimizer
    clusters: torch.Tensor | Clusters  # encoded once; raw ids when every logged step takes a sample
    snapshot_rows: torch.Tensor | None


def _update(run: _Run) -> None:
    """One full-batch Adam update of the embeddings and the classifier."""
    run.optimizer.zero_grad(set_to_none=True)
    run.objective.loss(run.model).backward()
    run.optimizer.step()


def _measure_row(run: _Run, side: Any, step: int) -> RowTransfer:
    """Every value of the row of ``step`` (the parameters after ``step`` updates), computed on the device
    without reading from it, and its one copy to the host started (:class:`RowTransfer`). Off the CPU the
    finiteness checks are deferred into that copy; on the CPU they raise where they stand (as the
    functions of engine.metrics do)."""
    config = run.config
    with torch.no_grad():
        values: dict[str, Any] = run.objective.evaluate_tensors(run.model)
        points = run.model.representations().detach()
        defer = run.where.type != "cpu"
        measured = measure_tensors(points.to(run.where), run.clusters, config, side, step, defer=defer)
        values.update(measured.values)
        snapshot = None
        if run.snapshot_rows is not None and (step % config.snapshot_every == 0 or step == config.steps):
            snapshot = points[run.snapshot_rows]
        return RowTransfer(values, run.where, measured.checks, measured.spectrum, snapshot)


def _optimise(run: _Run, emit: Callable[[Row], bool]) -> None:
    """The updates and the logged rows, handed to ``emit`` (False: the run ends there). Each logged row is
    read from the device in one transfer. On CUDA the row of a logged step is read after the next step's
    update and measures are queued (the device never waits for the host between steps); elsewhere at once.
    A row after which ``stop`` is set is the last one; a row queued beyond it is
    dropped, as a step after a stop was never run before."""
    from engine.metrics._parallel import side_executor, tasks_not_ops  # lazy: engine.metrics loads scipy

    config, stop = run.config, run.stop
    ahead = run.device.type == "cuda"
    with (
        tasks_not_ops(run.device) as workers,
        side_executor() if workers > 1 else contextlib.nullcontext() as side,
    ):
        started = time.perf_counter()

        def deliver(step: int, transfer: RowTransfer) -> bool:
            values, spectrum, snapshot = transfer.result()
            values["seconds"] = time.perf_counter() - started  # training time (a lecture pace is the view's)
            return emit(Row(step, values, snapshot, spectrum=spectrum)) and not stop.is_set()

        pending: tuple[int, RowTransfer] | None = None
        for step in range(config.steps + 1):
            if step > 0:
                _update(run)
            logged = not step % config.metric_every or step == config.steps
            queued = (step, _measure_row(run, side, step)) if logged else None
            if pending is not None and not deliver(*pending):
                return
            pending = None
            if queued is None:
                if stop.is_set():
                    return
            elif ahead:
                pending = queued
            elif not deliver(*queued):
                return
        if pending is not None:
            deliver(*pending)


#: Rows the optimisation may run ahead of the writer (the runner writes each row it is handed).
ROWS_AHEAD = 2


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = object()


def _in_background(
    work: Callable[[Callable[[Row], bool]], None], stop: threading.Event, threads: int, device: torch.device
) -> Iterator[Row]:
    """Run ``work(emit)`` (the optimisation) in a thread of its own and yield the rows it emits, so that
    the update loop never waits while the runner writes a row (metrics.csv, spectrum, snapshot, events):
    the next steps run meanwhile, at most :data:`ROWS_AHEAD` rows ahead. The thread gets this thread's
    torch thread count (a per-thread setting) and CUDA device. Its error is raised here; every row it
    emitted before is yielded first. When this generator ends (the end, a stop after a row, an error of
    the writer, ``close``) the thread is told to end and joined: it finishes at most its current step."""
    rows: queue.Queue[Any] = queue.Queue(maxsize=ROWS_AHEAD)
    halt = threading.Event()

    def emit(item: Any) -> bool:
        while not halt.is_set():
            try:
                rows.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def body() -> None:
        torch.set_num_threads(threads)
        try:
            with torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext():
                work(emit)
        except BaseException as err:  # noqa: BLE001 - raised again in the runner's thread
            emit(_Failure(err))
        else:
            emit(_END)

    worker = threading.Thread(target=body, name="embedlab-probe", daemon=True)
    worker.start()
    try:
        while True:
            item = rows.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
            if stop.is_set():
                return
    finally:
        halt.set()
        worker.join()


def _snapshot_rows(
    problem: ProbeProblem, config: ProbeConfig, generator: torch.Generator
) -> torch.Tensor | None:
    """A fixed, seeded subset of at most ``snapshot_limit`` items projected every ``snapshot_every`` steps."""
    if not config.snapshot_every:
        return None
    n = problem.n_items
    if n <= config.snapshot_limit:
        return torch.arange(n)
    return torch.randperm(n, generator=generator)[: config.snapshot_limit].sort().values


def _describe(problem: ProbeProblem, item: int) -> str:
    if problem.pairs is None:
        return problem.texts[item]
    premise, hypothesis = problem.pairs[item]
    return f"{problem.texts[premise]} ⟶ {problem.texts[hypothesis]}"


def _label_name(problem: ProbeProblem, item: int) -> str:
    if problem.multi_label:
        return "|".join(n for n, on in zip(problem.class_names, problem.targets[item]) if on > 0.5)
    return problem.class_names[int(problem.targets[item])]
