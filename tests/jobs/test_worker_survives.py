"""The app's job worker never dies (issue 47, harmful case 6): with ``EMBEDLAB_MALLOC_TUNING=abc`` the worker
thread died on a ConfigError while it prepared a warm spare, and "Start the demo" stayed "queued" forever.
A job that cannot start is a failed run with the one-line reason, and the next run starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import jobs
from engine.core import settings

TINY = {"data": "demo", "limit": 60, "steps": 3, "metric_every": 1, "seed": 0}


def test_a_bad_setting_fails_the_job_with_its_line_and_the_next_run_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDLAB_MALLOC_TUNING", "abc")
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=True, stop_grace=10)
    try:
        bad = reg.submit("probe", TINY, name="bad")
        assert reg.wait_idle(240)
        assert bad.state == "failed" and reg._worker.is_alive()
        assert bad.error == "the run could not start: EMBEDLAB_MALLOC_TUNING must be 1 or 0, got 'abc'"
        monkeypatch.delenv("EMBEDLAB_MALLOC_TUNING")
        good = reg.submit("probe", TINY, name="good")
        assert reg.wait_idle(240)
        assert good.state == "finished", good.error
    finally:
        reg.shutdown(timeout=30)


def test_a_set_up_that_raises_fails_its_job_and_the_worker_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any exception while a job is set up (here the child's environment, once), not a ConfigError only."""
    real, calls = settings.child_environment, []

    def broken_once() -> dict[str, str]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("set-up broke")
        return real()

    monkeypatch.setattr(settings, "child_environment", broken_once)
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=False, stop_grace=10)
    try:
        first = reg.submit("probe", TINY, name="first")
        assert reg.wait_idle(240)
        assert first.state == "failed" and "set-up broke" in first.error and reg._worker.is_alive()
        second = reg.submit("probe", TINY, name="second")
        assert reg.wait_idle(240)
        assert second.state == "finished", second.error
    finally:
        reg.shutdown(timeout=30)
