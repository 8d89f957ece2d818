"""The optimisation loop: full-batch Adam, one row of measures per logged step (step 0 is before any
update; the row of step s describes the parameters after s updates)."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from engine import stopping
from engine.device import seed_everything
from engine.errors import ConfigError
from engine.events import Event, Meter, Points, Progress, Row, relay
from engine.pace import lecture_pace
from engine.probe.compute import make_adam, measure_device, pick_device
from engine.probe.config import ProbeConfig
from engine.probe.measure import measure
from engine.probe.model import EmbeddingClassifier
from engine.probe.objectives import make_objective
from engine.probe.problem import ProbeProblem, build_problem

log = logging.getLogger(__name__)


def run_probe(config: ProbeConfig, stop: threading.Event | None = None) -> Iterator[Event]:
    """Full-batch Adam on embeddings + linear classifier (or the triplet objective); yields one metrics row
    per logged step. A stop during the set-up (reading, encoding) ends it at the next batch, no row logged."""
    from engine.metrics._parallel import side_executor, tasks_not_ops  # lazy: engine.metrics loads scipy

    stop = stop or threading.Event()
    generator = seed_everything(config.seed)
    device = pick_device(config.device)
    yield Progress("loading data", 0.0)
    encoder_box: dict[str, Any] = {}

    def set_up(report: Callable[[Progress | None], None]) -> ProbeProblem:
        """Read the data and encode it, reporting the sentences encoded (count, rate, time left)."""

        def encode(texts: list[str]) -> np.ndarray:
            from engine.encoders import encode_cached, load_encoder  # only sentences need the encoder

            report(Progress("loading encoder", 0.0))
            encoder_box["encoder"] = load_encoder(config.encoder, pooling=config.pooling, device=device)
            stopping.check()
            meter = Meter("encoding", "sentences")
            return encode_cached(
                encoder_box["encoder"], texts, progress=lambda done, total: report(meter(done, total))
            )

        return build_problem(config, encode)

    try:
        with stopping.watching(stop):  # a stop while reading or encoding ends the set-up at its next batch
            problem = yield from relay(set_up)
    except stopping.Stopped:
        return
    encoder_box.clear()  # free the transformer: only the embeddings are trained
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
    measured_clusters = clusters.to(where)
    snapshot_rows = _snapshot_rows(problem, config, generator)
    if snapshot_rows is not None:
        texts = [_describe(problem, i) for i in snapshot_rows.tolist()]
        labels = [_label_name(problem, i) for i in snapshot_rows.tolist()]
        yield Points(texts, labels)

    with (
        tasks_not_ops(device) as workers,
        side_executor() if workers > 1 else contextlib.nullcontext() as side,
    ):
        pace = lecture_pace(config.lecture_pace, config.steps, stop)
        started = time.perf_counter()
        for step in range(config.steps + 1):
            if step > 0:
                optimizer.zero_grad(set_to_none=True)
                loss = objective.loss(model)
                loss.backward()
                optimizer.step()
            if step % config.metric_every and step != config.steps:
                if stop.is_set():
                    return
                continue
            with torch.no_grad():  # every logged value describes the parameters after ``step`` updates
                values: dict[str, Any] = objective.evaluate(model)
                points = model.representations().detach()
                measured = measure(points.to(where), measured_clusters, config, side, step)
                values.update(measured.values)
                snapshot = None
                if snapshot_rows is not None and (step % config.snapshot_every == 0 or step == config.steps):
                    snapshot = points[snapshot_rows.to(points.device)].float().cpu().numpy()
            if pace is not None and pace.before(step):  # a lecture: wait between steps, not in one
                return
            waited = pace.waited if pace is not None else 0.0
            values["seconds"] = time.perf_counter() - started - waited  # training time, without the waits
            yield Row(step, values, snapshot, spectrum=measured.spectrum)
            if stop.is_set():
                return


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
