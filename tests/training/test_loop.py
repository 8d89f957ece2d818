"""The training core's loop (engine.training.loop): the untouched encoder's evaluation as set-up progress, and
the set-up and rows of a run with a trainer and an evaluator of the test's own."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from engine.runlog.events import Progress, Row
from engine.training.loop import first_evaluation, run_training


class FakeTrainer:
    """A trainer of the test's own: the loss is 1 / step."""

    encoder = "the encoder"

    def __init__(self, config: Any, data: Any, world: Any, device: Any) -> None:
        self.data = data

    def step(self, step: int) -> float:
        return 1.0 / step


class FakeEvaluator:
    """An evaluator of the test's own: the number of calls as its measure."""

    def __init__(self, encoder: Any, evalset: Any, probe: Any, precision: str = "fp32") -> None:
        self.calls = 0

    def __call__(self, stop: threading.Event, progress: Any = None) -> dict[str, Any]:
        self.calls += 1
        return {"sts_spearman": float(self.calls), "_points": np.zeros((2, 2)), "_spectrum": None}


def test_the_first_evaluation_yields_its_count_rate_and_time_left_and_returns_its_values() -> None:
    def evaluator(stop: threading.Event, progress) -> dict:
        for done in (128, 256, 300):
            progress(done, 300)
        return {"sts_spearman": 0.8}

    events, run = [], first_evaluation(evaluator, threading.Event())
    with pytest.raises(StopIteration) as ended:
        while True:
            events.append(next(run))
    assert ended.value.value == {"sts_spearman": 0.8}
    assert events[0].phase == "evaluating the untouched encoder 128/300 sentences"
    assert events[-1].phase.startswith("evaluating the untouched encoder 300/300 sentences")
    assert events[-1].fraction == 1.0


def test_the_set_up_runs_the_experiments_trainer_evaluator_check_and_finish(tiny_config) -> None:
    config = tiny_config(steps=4, eval_every=2)
    said: list[Any] = []
    events = list(
        run_training(
            config,
            None,
            FakeTrainer,
            FakeEvaluator,
            check=lambda: said.append("check"),
            finish=lambda trainer, last: iter([Progress(f"finished {trainer.encoder} {last}", 1.0)]),
        )
    )
    rows = [event for event in events if isinstance(event, Row)]
    assert [row.step for row in rows] == [0, 1, 2, 3, 4] and said == ["check"]
    assert [row.values.get("loss") for row in rows] == [None, 1.0, 0.5, 1 / 3, 0.25]
    assert [row.values.get("sts_spearman") for row in rows] == [1.0, None, 2.0, None, 3.0]
    assert events[-1].phase == "finished the encoder {'sts_spearman': 3.0}"


def test_a_stopped_run_finishes_nothing(tiny_config) -> None:
    stop = threading.Event()
    stop.set()
    finished: list[Any] = []
    events = list(run_training(tiny_config(), stop, FakeTrainer, FakeEvaluator, finish=finished.append))
    assert not [event for event in events if isinstance(event, Row)] and finished == []
