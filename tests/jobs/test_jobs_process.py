"""The job registry with process isolation: each run in its own ``python -m engine ... --events`` child.

Real probe runs on the demo corpus (tiny: 60 items). Most tests share one registry with a warm spare child,
so only the first job pays the imports; the cold path has a test of its own. The rows of every run are
read from its folder: a run started here, one of the CLI and one attached after a restart read the same.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from waiting import wait_for

from engine import cli, jobs, runlog
from engine.core import settings
from engine.core.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
TINY = {"data": "demo", "limit": 60, "steps": 5, "metric_every": 1, "seed": 0}
ENDLESS = {**TINY, "steps": 1_000_000}
TINY_FLAGS = ["--data", "demo", "--limit", "60", "--steps", "5", "--metric-every", "1", "--seed", "0"]


def cli_probe(out: Path, *flags: str) -> subprocess.Popen:
    """``python -m engine probe FLAGS --out OUT`` (no progress bar), stdout and stderr piped."""
    env = {**os.environ, "EMBEDLAB_NO_PROGRESS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "engine", "probe", *flags, "--out", str(out)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


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
        assert [row["step"] for row in job.rows.records()] == [0, 1, 2, 3, 4, 5]
        pd.testing.assert_frame_equal(job.rows.metrics(), runlog.read_metrics(job.run_dir))
        step, snapshot = job.pictures.latest_snapshot()
        assert step == 5 and snapshot.shape == (30, 384)
        assert sorted(job.pictures._snapshots) == [2, 4, 5]
        assert len(job.pictures.points()) == 30 and job.pictures.points()["text"].str.len().min() > 0
        assert job.summary["state"] == "finished" and job.summary["final"]["step"] == 5
        assert job.view()[0] == "pca"
        assert runlog.run_state(job.run_dir) == "finished"
    finally:
        reg.shutdown(timeout=30)


def test_warm_spare_runs_the_job(registry) -> None:
    wait_for(lambda: registry._spares._proc is not None, 30, "a spare child")
    spare = registry._spares._proc
    job = registry.submit("probe", TINY, name="warm")
    assert registry.wait_idle(180)
    assert job.state == "finished", job.error
    assert job.pid == spare.pid  # the spare ran it
    assert len(job.rows.records()) == 6 and job.summary["final"]["step"] == 5


def test_stop_ends_the_child_after_its_step_and_keeps_its_rows(registry) -> None:
    job = registry.submit("probe", ENDLESS, name="stop")
    wait_for(lambda: (job.rows.last_step or 0) >= 3 or not job.active, what="rows of the running child")
    job.stop()
    wait_for(lambda: not job.active, what="the stop")
    assert job.state == "stopped" and job.error is None
    assert runlog.run_state(job.run_dir) == "stopped"
    # the child ended the run itself (SIGTERM between steps), not the grace period's SIGKILL:
    # it wrote its summary
    assert runlog.read_json(job.run_dir / runlog.SUMMARY)["state"] == "stopped"
    disk = runlog.read_metrics(job.run_dir)
    assert len(disk) == len(job.rows.records()) >= 4 and disk["step"].tolist() == list(range(len(disk)))


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
    wait_for(lambda: (job.rows.last_step or 0) >= 3 or not job.active, what="rows of the running child")
    os.kill(job.pid, signal.SIGKILL)
    wait_for(lambda: not job.active, what="the end of the killed job")
    assert job.state == "failed" and "SIGKILL" in job.error and "\n" not in job.error
    disk = runlog.read_metrics(job.run_dir)
    assert len(disk) == len(job.rows.records()) >= 4
    assert disk["step"].tolist() == list(range(len(disk)))
    info = runlog.load_run_info(job.run_dir)
    assert info.state == "failed" and info.error == job.error


def test_a_child_that_ignores_stop_is_killed_after_the_grace_period(registry) -> None:
    registry.stop_grace = 1.0  # read when a child starts
    job = registry.submit("probe", ENDLESS, name="frozen")
    wait_for(lambda: (job.rows.last_step or 0) >= 2 or not job.active, what="rows of the running child")
    os.kill(job.pid, signal.SIGSTOP)  # a hung child: SIGTERM stays pending
    try:
        job.stop()
        wait_for(lambda: not job.active, what="the kill after the grace period")
    finally:
        registry.stop_grace = settings.get("stop_grace_seconds")
        if job.active:
            os.kill(job.pid, signal.SIGKILL)
    assert job.state == "stopped"
    assert runlog.run_state(job.run_dir) == "stopped"  # recorded for the child, which could not
    assert not (job.run_dir / runlog.SUMMARY).exists()  # killed: it never got to write its summary
    assert len(runlog.read_metrics(job.run_dir)) == len(job.rows.records())


def test_a_run_reads_the_same_started_here_from_the_cli_and_after_a_restart(registry) -> None:
    """One code path for rows: a run this registry started (child process), a run of the CLI, and both
    attached from disk by a new registry (a server restart) read what runlog.read_metrics reads."""
    served = registry.submit("probe", TINY, name="served")
    cli_dir = registry.runs_root / "from-the-cli"
    command = cli_probe(cli_dir, *TINY_FLAGS)
    _, err = command.communicate(timeout=300)
    assert command.returncode == 0, err
    assert registry.wait_idle(240) and served.state == "finished", served.error

    restarted = jobs.JobRegistry(registry.runs_root, project=False, warm=False)
    try:
        attached = {job.id: job for job in restarted.attach_finished()}
        again, from_cli = attached[served.id], attached["from-the-cli"]
        assert again.from_disk and from_cli.from_disk and not served.from_disk
        for job in (served, again, from_cli):
            assert job.state == "finished"
            pd.testing.assert_frame_equal(job.rows.metrics(), runlog.read_metrics(job.run_dir))
            assert job.rows.last_step == 5 and [row["step"] for row in job.rows.records()] == [
                0,
                1,
                2,
                3,
                4,
                5,
            ]
            assert job.rows.columns == served.rows.columns
        pd.testing.assert_frame_equal(again.rows.metrics(), served.rows.metrics())
        assert again.summary["final"] == served.summary["final"]
    finally:
        restarted.shutdown(timeout=30)


def test_a_cli_run_attached_while_it_runs_is_followed_until_it_stops(tmp_path: Path) -> None:
    """A run another process writes (the CLI here) is read row by row from its folder while it grows."""
    out = tmp_path / "runs" / "live-cli"
    command = cli_probe(out, "--data", "demo", "--limit", "60", "--steps", "1000000")
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=False)
    try:

        def attached() -> jobs.Job | None:
            reg.attach_finished()
            job = reg.get("live-cli")
            return (
                job if job is not None and job.state == "running" and job.rows.last_step is not None else None
            )

        job = wait_for(
            attached, 300, "the CLI run's first row, attached", describe=lambda: str(command.poll())
        )
        first = job.rows.last_step
        wait_for(lambda: job.rows.last_step >= first + 2, what="more rows of the attached run")
        command.send_signal(signal.SIGTERM)  # the CLI ends its run after the step
        command.communicate(timeout=120)
        wait_for(lambda: reg.attach_finished() == [] and job.state == "stopped", what="the stopped state")
        disk = runlog.read_metrics(out)
        pd.testing.assert_frame_equal(job.rows.metrics(), disk)
        assert disk["step"].tolist() == list(range(len(disk)))
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
        reg.shutdown(timeout=30)


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
    small = max(1, cpus - 1) if cpus <= settings.get("small_machine_cpus") else None
    assert jobs.default_child_threads() == small
    assert jobs.default_child_threads("simcse") == small
    assert jobs.default_child_threads("probe") is None  # task-parallel: every core, torch's default


def test_the_spare_says_when_it_is_warm(own_cache: Path, tmp_path: Path) -> None:
    """The spare writes on its ready pipe once warm: the demo embeddings are in the cache by then, and it
    still waits for its job. Closed, or without spares, there is nothing to wait for."""
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=True)
    try:
        assert reg.wait_spare_warm(120)
        assert list((own_cache / "embeddings").glob("*.npy"))
        assert reg._spares._proc.poll() is None
    finally:
        reg.shutdown(timeout=30)
    assert not reg.wait_spare_warm(5)
    cold = jobs.JobRegistry(tmp_path / "runs2", project=False, warm=False)
    try:
        assert not cold.wait_spare_warm(60)  # at once: spares are off
    finally:
        cold.shutdown(timeout=30)


def test_a_spare_that_dies_counts_as_warm(tmp_path: Path) -> None:
    """A spare that exits (a broken environment) closes its pipe: waiting ends, the next job starts cold."""
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=True)
    try:
        wait_for(lambda: reg._spares._proc is not None, 30, "a spare child")
        reg._spares._proc.kill()
        assert reg.wait_spare_warm(60)
    finally:
        reg.shutdown(timeout=30)


def test_runs_queued_as_one_group_go_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A preset's runs (one group) run at once, each child with its share of the CPUs; runs queued one by
    one still wait for each other."""
    monkeypatch.setenv("EMBEDLAB_FIGURE2_WORKERS", "2")
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, warm=False, stop_grace=10)
    try:
        assert reg.group_width() == 2
        first, second, third = (reg.submit("probe", ENDLESS, name=f"g{i}", group="preset") for i in range(3))
        wait_for(
            lambda: all(job.state == "running" and job.pid for job in (first, second)),
            120,
            "two runs side by side",
        )
        assert third.state == "queued"  # the group's width is 2
        first.stop()  # a lane whose run ends takes the group's next one
        wait_for(lambda: third.state == "running" and third.pid, 120, "the third run in the freed lane")
        assert second.state == "running"
        threads = max(1, len(os.sched_getaffinity(0)) // 2)
        for job in (second, third):
            argv = Path(f"/proc/{job.pid}/cmdline").read_bytes().decode().split("\0")
            assert argv[argv.index("--threads") + 1] == str(threads), argv
        reg.stop_all()
        assert reg.wait_idle(120)
        assert {job.state for job in (first, second, third)} <= {"stopped", "cancelled"}

        alone, after = (reg.submit("probe", ENDLESS, name=f"s{i}") for i in range(2))
        wait_for(lambda: alone.state == "running", 120, "the first run")
        wait_for(lambda: alone.rows.last_step is not None, 120, "a row of the first run")
        assert after.state == "queued"  # no group: one after the other
        reg.stop_all()
        assert reg.wait_idle(120)
    finally:
        reg.shutdown(timeout=30)


def test_thread_isolation_keeps_groups_one_at_a_time(tmp_path: Path) -> None:
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    try:
        assert reg.group_width() == 1
    finally:
        reg.shutdown(timeout=30)
