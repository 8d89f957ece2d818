"""Soak: 20 short runs back to back through the job registry; memory and file handles must stay flat.

Not in the default run (marker ``soak``). Run it with::

    python -m pytest -m soak tests/soak -s

It prints RSS and open file descriptors after every run and asserts that, after a warm-up of 5 runs,
RSS grows by less than 60 MiB and the descriptor count by at most 4 over the remaining 15 runs. Each run is
a child process of the registry (the app's default): no child may be left behind but the one warm spare.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from engine import runlog
from engine.jobs import JobRegistry
from engine.probe import ProbeConfig

RUNS, WARM_UP = 20, 5


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        kib = next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
    return kib / 1024


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def child_processes() -> list[int]:
    """Live (not zombie) children of this process, from every thread's /proc children list."""
    pids = {int(p) for f in Path("/proc/self/task").glob("*/children") for p in f.read_text().split()}
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@pytest.mark.soak
def test_twenty_queued_runs_keep_memory_and_handles_flat(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path / "runs", project=True)
    samples: list[tuple[int, float, int]] = []
    try:
        for index in range(RUNS):
            config = ProbeConfig(
                data="demo", limit=120, steps=30, snapshot_every=10, snapshot_limit=120, seed=index
            )
            job = registry.submit("probe", config, name=f"soak-{index}")
            assert registry.wait_idle(timeout=600), "a soak run did not finish in 10 minutes"
            assert job.state == "finished", job.error
            assert len(job.rows.metrics()) == 31  # the rows, read from the run folder
            gc.collect()
            samples.append((index + 1, rss_mib(), open_fds()))
            children = child_processes()
            print(
                f"after run {index + 1:2d}: RSS {samples[-1][1]:7.1f} MiB, open fds {samples[-1][2]}, "
                f"child processes {len(children)}"
            )
            assert len(children) <= 1, f"children left behind: {children}"
    finally:
        registry.shutdown()
    runs = runlog.list_runs(tmp_path / "runs")
    assert len(runs) == RUNS and all(info.state == "finished" for info in runs)
    assert all(len(runlog.read_metrics(info.path)) == 31 for info in runs)
    _, rss_start, fds_start = samples[WARM_UP - 1]
    _, rss_end, fds_end = samples[-1]
    print(f"RSS {rss_start:.1f} -> {rss_end:.1f} MiB, fds {fds_start} -> {fds_end} (runs {WARM_UP}..{RUNS})")
    assert rss_end - rss_start < 60, f"RSS grew by {rss_end - rss_start:.1f} MiB over {RUNS - WARM_UP} runs"
    assert fds_end - fds_start <= 4, f"open file descriptors grew from {fds_start} to {fds_end}"
