"""engine.metrics._parallel: every task runs once, errors propagate, torch's thread count is restored."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.metrics import silhouette_score

from engine.metrics import isoscore, silhouette
from engine.metrics._parallel import run_tasks, side_executor, tasks_not_ops, worker_count


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_every_task_once_and_threads_restored(two_threads) -> None:
    states = run_tasks(list(range(100)), list, lambda state, task: state.append(task), torch.device("cpu"))
    assert len(states) == 2
    assert sorted(t for state in states for t in state) == list(range(100))
    assert torch.get_num_threads() == 2


def test_errors_propagate(two_threads) -> None:
    def step(state: list, task: int) -> None:
        if task == 7:
            raise ValueError("task 7 failed")

    with pytest.raises(ValueError, match="task 7"):
        run_tasks(list(range(20)), list, step, torch.device("cpu"))
    assert torch.get_num_threads() == 2


def test_single_thread_runs_sequentially_with_same_results() -> None:
    x = np.random.default_rng(0).normal(size=(700, 12))
    y = np.arange(700) % 3
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert worker_count(torch.device("cpu")) == 1
        one = silhouette(x, y), isoscore(x)
    finally:
        torch.set_num_threads(before)
    assert silhouette(x, y) == pytest.approx(one[0], abs=1e-12)
    assert isoscore(x) == pytest.approx(one[1], abs=1e-12)
    assert one[0] == pytest.approx(silhouette_score(x, y), abs=1e-9)


def test_tasks_not_ops_moves_the_threads_from_ops_to_workers(two_threads) -> None:
    cpu = torch.device("cpu")
    with tasks_not_ops(cpu) as workers:
        assert workers == 2
        assert torch.get_num_threads() == 1  # this thread's ops
        assert worker_count(cpu) == 2  # the metric pool keeps both cores
        assert worker_count(torch.device("cuda")) == 1
    assert torch.get_num_threads() == 2 and worker_count(cpu) == 2
    with tasks_not_ops(torch.device("cuda")) as workers:  # accelerators: nothing changes (no GPU needed)
        assert workers == 1 and torch.get_num_threads() == 2


def test_side_executor_runs_single_threaded_and_leaves_the_caller_alone(two_threads) -> None:
    with side_executor() as side:
        seen = side.submit(lambda: (torch.get_num_threads(), worker_count(torch.device("cpu")))).result()
    assert seen == (1, 1)
    assert torch.get_num_threads() == 2
