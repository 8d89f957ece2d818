"""Runs side by side (engine.runlog.side_by_side): each worker's CPU share, the runs' numbers those of
one process, and a failed run ending the others at once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from engine import runlog
from engine.core.errors import EmbedlabError
from engine.experiments import EXPERIMENTS
from engine.runlog.side_by_side import CpuShare, PlannedRun, run_side_by_side

TINY = {"data": "demo", "limit": 60, "steps": 5, "metric_every": 1, "seed": 0}


def _probe(out: Path, **fields) -> PlannedRun:
    config = EXPERIMENTS["probe"].make_config(**{**TINY, **fields})
    return PlannedRun(EXPERIMENTS["probe"], config, out, f"[test] {out.name}")


def test_a_run_takes_the_cpus_the_others_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    set_to: list[int] = []
    monkeypatch.setattr(torch, "set_num_threads", set_to.append)
    running = multiprocessing.get_context("spawn").Value("i", 0)
    with CpuShare(running, 4) as first:
        with CpuShare(running, 4) as second:
            assert running.value == 2 and set_to == [4, 2]  # first alone, then second beside it
            first.update()
            assert set_to == [4, 2, 2]
        assert running.value == 1
        first.update(object())  # after any event: the other run ended, its CPUs come back
        first.update()
        assert set_to == [4, 2, 2, 4] and second.threads == 2
    assert running.value == 0


def test_two_workers_return_the_summaries_in_the_order_given(
    tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    """(That a run side by side has the numbers it has alone: tests/simcse/test_figure2_runs.py.)"""
    runs = [_probe(tmp_path / "first", steps=8), _probe(tmp_path / "second", seed=1)]
    summaries = run_side_by_side(runs, 2, 2)
    assert [s["state"] for s in summaries] == ["finished", "finished"]
    assert summaries == [runlog.read_summary(run.out) for run in runs]  # the two differ: steps, seed
    assert summaries[0] != summaries[1]
    printed = capfd.readouterr().err
    assert printed.count("[test] first") == printed.count("[test] second") == 1  # from the workers


@pytest.mark.timeout(240)  # not after the endless run, which would take hours
def test_a_failed_run_stops_the_run_in_progress_and_starts_no_other(tmp_path: Path) -> None:
    """The endless run trains in one worker while the other finishes a short run, then fails: the endless
    run ends ``stopped`` (recorded, never left running), the run after the failed one never starts."""
    endless, short = _probe(tmp_path / "endless", steps=1_000_000), _probe(tmp_path / "short")
    bad, never = _probe(tmp_path / "bad", sample_size=1000), _probe(tmp_path / "never")
    with pytest.raises(EmbedlabError, match="sample_size 1000 is larger than the data"):
        run_side_by_side([endless, short, bad, never], 2, 2)
    assert runlog.run_state(endless.out) == "stopped"
    assert runlog.run_state(short.out) == "finished" and runlog.run_state(bad.out) == "failed"
    assert not never.out.exists()
    assert multiprocessing.active_children() == []
