"""The job registry: FIFO queue, stop, failure isolation, concurrent submitters, re-attaching runs."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine import jobs, runlog, runner
from engine.errors import ConfigError


@dataclass
class SlowConfig:
    steps: int = 5
    delay: float = 0.0
    fail: str = ""  # "", "config", "oom"
    points: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.steps < 1:
            raise ConfigError(f"steps must be >= 1, got {self.steps}")


STARTED: list[str] = []


def slow_generator(config: SlowConfig, stop: threading.Event):
    STARTED.append(f"{config.steps}-{config.delay}")
    yield {"progress": 0.0, "phase": "loading"}
    if config.points:
        yield {"points": ([f"s{i}" for i in range(config.points)], [str(i % 2) for i in range(config.points)])}
    for step in range(config.steps + 1):
        if config.fail and step == 2:
            if config.fail == "config":
                raise ConfigError("data set 'x': column 'text' missing")
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        time.sleep(config.delay)
        row = {"step": step, "loss": 1.0 / (step + 1), "seconds": step * 0.1}
        if config.points:
            rng = np.random.default_rng(step)
            row["snapshot"] = rng.normal(size=(config.points, 8)).astype(np.float32)
        yield row
        if stop.is_set():
            return


@pytest.fixture
def slow_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    experiment = runner.Experiment(
        kind="slow", title="slow", config_class=f"{__name__}:SlowConfig",
        generator=f"{__name__}:slow_generator", columns=("step", "loss", "seconds"),
    )
    monkeypatch.setitem(runner.EXPERIMENTS, "slow", experiment)
    STARTED.clear()
    return "slow"


@pytest.fixture
def registry(tmp_path: Path):
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    yield reg
    reg.shutdown()


def wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


def test_jobs_run_in_submission_order_and_log_everything(registry, slow_kind) -> None:
    first = registry.submit(slow_kind, {"steps": 3, "delay": 0.02}, name="first")
    second = registry.submit(slow_kind, SlowConfig(steps=4), name="second")
    assert second.state == "queued"
    assert registry.wait_idle(20)
    assert STARTED == ["3-0.02", "4-0.0"]
    assert first.state == second.state == "finished"
    assert first.started <= second.started
    assert first.metrics()["step"].tolist() == [0, 1, 2, 3]
    assert runlog.read_metrics(second.run_dir)["step"].tolist() == [0, 1, 2, 3, 4]
    assert first.progress()[0] == 1.0
    assert first.run_dir.name.startswith("first-")


def test_stop_running_and_cancel_queued(registry, slow_kind) -> None:
    running = registry.submit(slow_kind, {"steps": 10_000, "delay": 0.01})
    queued = registry.submit(slow_kind, {"steps": 3})
    wait_for(lambda: running.last_step is not None and running.last_step >= 2)
    queued.stop()
    assert queued.state == "stopped"
    stopped_at = time.monotonic()
    running.stop()
    wait_for(lambda: running.state == "stopped", timeout=5)
    assert time.monotonic() - stopped_at < 1.0  # within one step
    assert registry.wait_idle(5)
    assert len(STARTED) == 1  # the cancelled job never started
    assert runlog.run_state(running.run_dir) == "stopped"
    assert not queued.run_dir.exists()
    assert len(runlog.read_metrics(running.run_dir)) == len(running.rows())


@pytest.mark.parametrize("fail, text", [("config", "column 'text' missing"), ("oom", "CUDA out of memory")])
def test_failure_becomes_a_failed_job_and_the_worker_goes_on(registry, slow_kind, fail, text) -> None:
    bad = registry.submit(slow_kind, {"steps": 5, "fail": fail})
    good = registry.submit(slow_kind, {"steps": 2})
    assert registry.wait_idle(20)
    assert bad.state == "failed" and text in bad.error and "\n" not in bad.error
    assert good.state == "finished"
    assert runlog.load_run_info(bad.run_dir).error == bad.error


def test_bad_settings_and_kind_raise_config_error(registry, slow_kind) -> None:
    with pytest.raises(ConfigError, match="steps must be"):
        registry.submit(slow_kind, {"steps": 0})
    with pytest.raises(ConfigError, match="unknown experiment"):
        registry.submit("nope", {})
    with pytest.raises(ConfigError, match="slow settings"):
        registry.submit(slow_kind, {"no_such_field": 1})
    assert registry.jobs() == []


def test_two_submitters_at_once_get_separate_complete_logs(registry, slow_kind) -> None:
    made: list[jobs.Job] = []
    barrier = threading.Barrier(2)

    def submit(steps: int) -> None:
        barrier.wait()
        made.append(registry.submit(slow_kind, {"steps": steps, "delay": 0.005}, name="same"))

    threads = [threading.Thread(target=submit, args=(n,)) for n in (6, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert registry.wait_idle(20)
    assert len({job.run_dir for job in made}) == 2
    for job in made:
        steps = runlog.read_metrics(job.run_dir)["step"].tolist()
        assert steps == list(range(job.config.steps + 1))
        assert runlog.run_state(job.run_dir) == "finished"


def test_speed_eta_and_progress_while_running(registry, slow_kind) -> None:
    job = registry.submit(slow_kind, {"steps": 200, "delay": 0.01})
    wait_for(lambda: (job.last_step or 0) >= 10)
    fraction, text = job.progress()
    assert 0 < fraction < 1 and text.startswith("step ")
    assert job.steps_per_second() > 10
    assert job.eta_seconds() > 0
    job.stop()
    assert registry.wait_idle(5)


def test_snapshots_are_bounded_and_pca_view_is_instant(registry, slow_kind) -> None:
    job = registry.submit(slow_kind, {"steps": 8, "points": 30})
    assert registry.wait_idle(20)
    assert len(job._snapshots) == jobs.KEEP_SNAPSHOTS
    method, step, coords = job.view()
    assert (method, step, coords.shape) == ("pca", 8, (30, 2))
    assert list(job.points()["label"][:2]) == ["0", "1"]
    job.add_frame(8, np.ones((30, 2)))
    assert job.view()[0] == "umap"
    assert (job.run_dir / "frames" / "step_000008.csv").exists()


def test_attach_finished_lists_runs_on_disk_including_interrupted(tmp_path: Path, slow_kind) -> None:
    first = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    job = first.submit(slow_kind, {"steps": 3, "points": 10})
    assert first.wait_idle(20)
    job.add_frame(3, np.zeros((10, 2)))
    first.shutdown()
    # a run whose writer died: status "running" with a pid that does not exist
    dead = tmp_path / "runs" / "dead-run"
    writer = runlog.RunWriter(dead, ["step", "loss"], {"kind": "slow", "steps": 9})
    writer.append({"step": 0, "loss": 1.0})
    status = runlog.read_json(dead / runlog.STATUS)
    status["pid"] = 2**22 + 12345
    runlog.write_json_atomic(dead / runlog.STATUS, status)
    (tmp_path / "runs" / "junk").mkdir()  # foreign folder: skipped

    second = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    try:
        added = {j.id: j for j in second.attach_finished()}
        assert set(added) == {job.id, "dead-run"}
        assert added["dead-run"].state == "interrupted"
        again = added[job.id]
        assert again.state == "finished" and again.metrics()["step"].tolist() == [0, 1, 2, 3]
        assert again.view()[0] == "umap" and 3 in again.frames()
        assert len(again.points()) == 10
        assert second.attach_finished() == []  # idempotent
    finally:
        second.shutdown()


def test_projection_worker_makes_frames_from_the_newest_snapshot(tmp_path: Path, slow_kind) -> None:
    metrics = pytest.importorskip("engine.metrics")
    if not hasattr(metrics, "knn"):
        pytest.skip("engine.metrics.knn not available yet")
    registry = jobs.JobRegistry(tmp_path / "runs", project=True, isolation="thread")
    try:
        job = registry.submit(slow_kind, {"steps": 3, "points": 40, "delay": 0.05})
        assert registry.wait_idle(20)
        wait_for(lambda: 3 in job.frames() or job.frame_error, timeout=120)
        assert job.frame_error is None
        assert job.frames()[3].shape == (40, 2)
        assert (job.run_dir / "frames" / "step_000003.csv").exists()
        # after the run, the film is back-filled from the snapshots on disk
        assert registry.wait_idle(120, frames=True)
        assert sorted(job.frames()) == [0, 1, 2, 3]
        assert job.missing_film_step() is None
    finally:
        registry.shutdown()


def test_stop_during_a_slow_umap_frame_does_not_hang_the_run(tmp_path: Path, slow_kind, monkeypatch) -> None:
    import engine.projection as projection

    entered = threading.Event()

    def slow_frame(X, previous=None, knn=None, seed=0, **kwargs):
        entered.set()
        time.sleep(3.0)
        return np.zeros((len(X), 2), dtype=np.float32)

    monkeypatch.setattr(projection, "umap_frame", slow_frame)
    monkeypatch.setattr("engine.metrics.knn", lambda X, k: (None, None), raising=False)
    registry = jobs.JobRegistry(tmp_path / "runs", project=True, isolation="thread")
    registry.projector._prewarm = False
    try:
        job = registry.submit(slow_kind, {"steps": 100_000, "points": 20, "delay": 0.01})
        assert entered.wait(30)
        asked = time.monotonic()
        job.stop()
        wait_for(lambda: job.state == "stopped", timeout=5)
        assert time.monotonic() - asked < 1.0
        assert runlog.run_state(job.run_dir) == "stopped"
    finally:
        registry.shutdown(timeout=10)


def test_projector_keeps_to_its_cpu_share_while_a_job_trains(tmp_path: Path, slow_kind, monkeypatch) -> None:
    """After a live frame that used c CPU seconds, the projector rests until c / live_share have passed."""
    import engine.projection as projection

    starts: list[float] = []

    def busy_frame(X, previous=None, knn=None, seed=0, **kwargs):
        starts.append(time.monotonic())
        began = time.thread_time()
        while time.thread_time() - began < 0.2:  # 0.2 CPU seconds
            pass
        return np.zeros((len(X), 2), dtype=np.float32)

    monkeypatch.setattr(projection, "umap_frame", busy_frame)
    monkeypatch.setattr("engine.metrics.knn", lambda X, k: (None, None), raising=False)
    registry = jobs.JobRegistry(tmp_path / "runs", project=True, isolation="thread")
    registry.projector._prewarm = False
    registry.projector.live_share = 0.25
    try:
        job = registry.submit(slow_kind, {"steps": 100_000, "points": 20, "delay": 0.01})
        wait_for(lambda: len(starts) >= 3, timeout=30)
        gaps = np.diff(starts)
        assert gaps.min() >= 0.2 / 0.25 * 0.9, gaps  # a snapshot is always pending: only the budget waits
        job.stop()
    finally:
        registry.shutdown(timeout=10)
