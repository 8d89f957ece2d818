"""Block tasks on a small pool of single-threaded CPU workers (sequential on GPUs).

Why: the metrics are many independent blocks (GEMM + a few element-wise passes each). Run with torch's
intra-op threads, every op ends in a barrier, and on a machine shared with other busy processes each
barrier waits for a descheduled partner thread: measured 2x slower than this pool, in which each worker
runs its kernels on one thread and takes the next block from a shared queue (dynamic load balancing).
``torch.set_num_threads(1)`` in a worker sets that thread's OpenMP/MKL thread count; the process-wide
default is restored afterwards.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import torch

T = TypeVar("T")
S = TypeVar("S")


_local = threading.local()


def worker_count(device: torch.device) -> int:
    """Workers for ``device``: 1 on accelerators; on the CPU the count set by :func:`tasks_not_ops` in this
    thread, else torch's intra-op thread count."""
    if device.type != "cpu":
        return 1
    chosen = getattr(_local, "workers", None)
    return chosen if chosen is not None else max(1, torch.get_num_threads())


@contextlib.contextmanager
def tasks_not_ops(device: torch.device) -> Iterator[int]:
    """Within: this thread's torch ops run on one thread, and its former thread count becomes the number of
    metric workers (yielded). For loops of small ops (the probe's Adam step on an n x d matrix): op-level
    threads meet at a barrier after every op and stall whenever another process (browser, web server)
    holds a core, while whole tasks on single-threaded workers just take longer. Accelerators: no change."""
    if device.type != "cpu":
        yield 1
        return
    threads, before = max(1, torch.get_num_threads()), getattr(_local, "workers", None)
    _local.workers = threads
    torch.set_num_threads(1)
    try:
        yield threads
    finally:
        torch.set_num_threads(threads)
        _local.workers = before


def run_tasks(
    tasks: Sequence[T], make_state: Callable[[], S], step: Callable[[S, T], None], device: torch.device
) -> list[S]:
    """Apply ``step(state, task)`` to every task; each worker owns one ``make_state()``; returns the
    states."""
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


def side_executor() -> ThreadPoolExecutor:
    """One long-lived helper thread for a small metric run *beside* a pooled one (e.g. IsoScore's d x d
    covariance beside the silhouette's n x n blocks): its torch ops run on one thread (OpenMP and MKL
    thread counts are per thread), so the two together keep every core busy without oversubscribing."""
    return ThreadPoolExecutor(
        1, thread_name_prefix="embedlab-side", initializer=torch.set_num_threads, initargs=(1,)
    )


@contextlib.contextmanager
def one_lapack_thread(device: torch.device) -> Iterator[None]:
    """Run a d x d decomposition on one CPU thread: threaded LAPACK on a busy machine spends up to
    seconds in thread synchronisation for d = 384 (measured: 5 s vs 15 ms single-threaded)."""
    threads = torch.get_num_threads()
    if device.type != "cpu" or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
