"""The job registry with process isolation: each run in its own ``python -m engine ... --events`` child.

Real probe runs on the demo corpus (tiny: 60 items). Most tests share one registry with a warm spare child,
so only the first job pays the imports; the cold path has a test of its own.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from engine import cli, jobs, runlog
from engine.errors import ConfigError

TINY = {"data": "demo", "limit": 60, "steps": 5, "metric_every": 1, "seed": 0}
ENDLESS = {**TINY, "steps": 1_000_000}


def wait_for(predicate, timeout: float = 120.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"{what} not met in {timeout:.0f} s")


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory):
    reg = jobs.JobRegistry(tmp_path_factory.mktemp("proc") / "runs", project=False, warm=True, stop_grace=10)
    yield reg
    reg.shutdown(timeout=30)


def test_cold_child_streams_rows_snapshots_and_points(tmp_path: Path) -> None:
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=False)
    try:
        job = reg.submit("probe", {**TINY, "snapshot_every": 2, "snapshot_limit": 30}, name="cold")
        assert reg.wait_idle(180), job.phase
        assert job.state == "finished", job.error
        assert job.pid is not None and job.pid != os.getpid()
        assert [row["step"] for row in job.rows()] == [0, 1, 2, 3, 4, 5]
        assert job.metrics()["step"].tolist() == runlog.read_metrics(job.run_dir)["step"].tolist()
        step, snapshot = job.latest_snapshot()
        assert step == 5 and snapshot.shape == (30, 384)
        assert sorted(job._snapshots) == [2, 4, 5]
        assert len(job.points()) == 30 and job.points()["text"].str.len().min() > 0
        assert job.summary["state"] == "finished" and job.summary["final"]["step"] == 5
        assert job.view()[0] == "pca"
        assert runlog.run_state(job.run_dir) == "finished"
    finally:
        reg.shutdown(timeout=30)


def test_warm_spare_runs_the_job_and_rows_arrive_quickly(registry) -> None:
    wait_for(lambda: registry._spares._proc is not None, 30, "a spare child")
    spare = registry._spares._proc
    time.sleep(0.5)
    job = registry.submit("probe", TINY, name="warm")
    assert registry.wait_idle(180)
    assert job.state == "finished", job.error
    assert job.pid == spare.pid  # the spare ran it
    assert len(job.rows()) == 6 and job.summary["final"]["step"] == 5


def test_stop_ends_the_child_within_a_step_and_keeps_its_rows(registry) -> None:
    job = registry.submit("probe", ENDLESS, name="stop")
    wait_for(lambda: (job.last_step or 0) >= 3 or not job.active, what="rows of the running child")
    asked = time.monotonic()
    job.stop()
    wait_for(lambda: not job.active, timeout=15, what="the stop")
    assert time.monotonic() - asked < 5.0  # one step + the child's exit (imports torn down)
    assert job.state == "stopped" and job.error is None
    assert runlog.run_state(job.run_dir) == "stopped"
    assert len(runlog.read_metrics(job.run_dir)) == len(job.rows()) >= 4


def test_a_bad_setting_is_a_failed_job_with_one_line_and_the_worker_goes_on(registry) -> None:
    bad = registry.submit("probe", {**TINY, "sample_size": 1000}, name="bad")
    good = registry.submit("probe", TINY, name="good")
    assert registry.wait_idle(240)
    assert bad.state == "failed"
    assert "sample_size 1000 is larger than the data" in bad.error and "\n" not in bad.error
    assert runlog.load_run_info(bad.run_dir).error == bad.error
    assert good.state == "finished", good.error


def test_sigkill_of_the_child_is_a_failed_job_with_the_rows_kept(registry) -> None:
    job = registry.submit("probe", ENDLESS, name="killed")
    wait_for(lambda: (job.last_step or 0) >= 3 or not job.active, what="rows of the running child")
    os.kill(job.pid, signal.SIGKILL)
    wait_for(lambda: not job.active, timeout=15, what="the end of the killed job")
    assert job.state == "failed" and "SIGKILL" in job.error and "\n" not in job.error
    disk = runlog.read_metrics(job.run_dir)
    assert len(disk) == len(job.rows()) >= 4
    assert disk["step"].tolist() == list(range(len(disk)))
    info = runlog.load_run_info(job.run_dir)
    assert info.state == "failed" and info.error == job.error


def test_a_child_that_ignores_stop_is_killed_after_the_grace_period(registry) -> None:
    registry.stop_grace = 1.0  # read when a child starts
    job = registry.submit("probe", ENDLESS, name="frozen")
    wait_for(lambda: (job.last_step or 0) >= 2 or not job.active, what="rows of the running child")
    os.kill(job.pid, signal.SIGSTOP)  # a hung child: SIGTERM stays pending
    try:
        asked = time.monotonic()
        job.stop()
        wait_for(lambda: not job.active, timeout=40, what="the kill after the grace period")
    finally:
        registry.stop_grace = 10.0
        if job.active:
            os.kill(job.pid, signal.SIGKILL)
    assert job.state == "stopped" and time.monotonic() - asked < 30
    assert runlog.run_state(job.run_dir) == "stopped"  # recorded for the child, which could not
    assert len(runlog.read_metrics(job.run_dir)) == len(job.rows())


def test_config_json_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid JSON"):
        cli.load_config_json("probe", "{nope")
    with pytest.raises(ConfigError, match="probe settings"):
        cli.load_config_json("probe", '{"no_such_field": 1}')
    with pytest.raises(ConfigError, match="steps must be"):
        cli.load_config_json("probe", '{"steps": 0}')
    path = tmp_path / "config.json"
    path.write_text('{"kind": "probe", "steps": 7}')
    assert cli.load_config_json("probe", str(path)).steps == 7
    with pytest.raises(ConfigError, match="--config-json"):
        cli.load_config_json("probe", str(tmp_path / "missing.json"))


def test_unknown_isolation_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="isolation"):
        jobs.JobRegistry(tmp_path / "runs", isolation="fork")


def test_spare_warm_up_caches_the_demo_embeddings_and_hands_over_the_encoder(own_cache: Path) -> None:
    from engine.encoders import encode_cached, load_encoder
    from engine.encoders.loading import _handed_over
    from engine.probe import ProbeConfig, build_problem

    jobs.warm_default_encoder()
    files = list((own_cache / "embeddings").glob("*.npy"))
    assert len(files) == 1
    warm = load_encoder()  # what a run on the bundled encoder gets: the warm one, no second load
    assert not _handed_over
    stamp = files[0].stat().st_mtime_ns
    problem = build_problem(ProbeConfig(data="demo"), lambda texts: encode_cached(warm, texts))
    assert problem.embeddings.shape == (600, 384)
    assert files[0].stat().st_mtime_ns == stamp  # a cache hit: the demo is not encoded again


def test_child_threads_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDLAB_JOB_THREADS", "3")
    assert jobs.default_child_threads() == 3
    monkeypatch.setenv("EMBEDLAB_JOB_THREADS", "0")
    assert jobs.default_child_threads() is None
    monkeypatch.setenv("EMBEDLAB_JOB_THREADS", "many")
    with pytest.raises(ConfigError, match="EMBEDLAB_JOB_THREADS"):
        jobs.default_child_threads()
    monkeypatch.setenv("EMBEDLAB_JOB_THREADS", "3")
    assert jobs.default_child_threads("probe") == 3  # the environment wins for every kind
    monkeypatch.delenv("EMBEDLAB_JOB_THREADS")
    cpus = len(os.sched_getaffinity(0))
    small = max(1, cpus - 1) if cpus <= jobs.SMALL_MACHINE_CPUS else None
    assert jobs.default_child_threads() == small
    assert jobs.default_child_threads("simcse") == small
    assert jobs.default_child_threads("probe") is None  # task-parallel: every core, torch's default
