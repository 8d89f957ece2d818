"""Block tasks on a small pool of single-threaded CPU workers (sequential on GPUs).

Why: the metrics are many independent blocks (GEMM + a few element-wise passes each). Run with torch's
intra-op threads, every op ends in a barrier, and on a machine shared with other busy processes each
barrier waits for a descheduled partner thread: measured 2x slower than this pool, in which each worker
runs its kernels on one thread and takes the next block from a shared queue (dynamic load balancing).
``torch.set_num_threads(1)`` in a worker sets that thread's OpenMP/MKL thread count; the process-wide
default is restored afterwards.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import torch

T = TypeVar("T")
S = TypeVar("S")


def worker_count(device: torch.device) -> int:
    """Workers for ``device``: torch's intra-op thread count on the CPU, 1 on accelerators."""
    return max(1, torch.get_num_threads()) if device.type == "cpu" else 1


def run_tasks(
    tasks: Sequence[T], make_state: Callable[[], S], step: Callable[[S, T], None], device: torch.device
) -> list[S]:
    """Apply ``step(state, task)`` to every task; each worker owns one ``make_state()``; returns the states."""
    workers = min(worker_count(device), len(tasks))
    if workers <= 1:
        state = make_state()
        for task in tasks:
            step(state, task)
        return [state]
    pending = iter(range(len(tasks)))
    lock = threading.Lock()
    failed = threading.Event()

    def work() -> S:
        torch.set_num_threads(1)
        state = make_state()
        while not failed.is_set():
            with lock:
                index = next(pending, None)
            if index is None:
                break
            try:
                step(state, tasks[index])
            except BaseException:
                failed.set()
                raise
        return state

    threads = torch.get_num_threads()
    try:
        with ThreadPoolExecutor(workers, thread_name_prefix="embedlab-metrics") as pool:
            futures = [pool.submit(work) for _ in range(workers)]
            return [future.result() for future in futures]
    finally:
        torch.set_num_threads(threads)


def row_chunks(n: int, device: torch.device, per_worker: int = 4, minimum: int = 256) -> list[slice]:
    """Row ranges giving each worker a few chunks (load balancing), none tiny."""
    step = max(minimum, -(-n // (per_worker * worker_count(device))))
    return [slice(s0, min(s0 + step, n)) for s0 in range(0, n, step)]


def column_mean(x: torch.Tensor) -> torch.Tensor:
    """Mean of the rows of ``x`` in float64, summed by the workers over row chunks."""

    def new_sum() -> torch.Tensor:
        return torch.zeros(x.shape[1], dtype=torch.float64, device=x.device)

    def add(total: torch.Tensor, rows: slice) -> None:
        total += x[rows].sum(dim=0, dtype=torch.float64)

    parts = run_tasks(row_chunks(x.shape[0], x.device), new_sum, add, x.device)
    return sum(parts[1:], parts[0]) / x.shape[0]
