"""The job registry in thread isolation: FIFO queue, stop, failure isolation, concurrent submitters,
re-attaching runs, runs written by another process, and the projection worker's frames."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from waiting import wait_for

import engine.charts.projection_frames
import engine.metrics
from engine import jobs, runlog
from engine.core import settings
from engine.core.errors import ConfigError
from engine.jobs.projection_worker import ProjectionWorker, rest_seconds
from engine.runlog import runner
from engine.runlog.events import Points, Progress, Row
from tests.fake_kinds import register


@dataclass
class SlowConfig:
    steps: int = 5
    delay: float = 0.0
    fail: str = ""  # "", "config", "oom"
    points: int = 0
    seed: int = 0
    gated: bool = False  # each step waits for a permit of GATE (the test decides when a step may run)

    def __post_init__(self) -> None:
        if self.steps < 1:
            raise ConfigError(f"steps must be >= 1, got {self.steps}")


STARTED: list[str] = []
GATE = threading.Semaphore(0)


def _wait_for_permit(stop: threading.Event) -> bool:
    while not GATE.acquire(timeout=0.05):
        if stop.is_set():
            return False
    return True


def slow_generator(config: SlowConfig, stop: threading.Event):
    STARTED.append(f"{config.steps}-{config.delay}")
    yield Progress("loading", 0.0)
    if config.points:
        yield Points([f"s{i}" for i in range(config.points)], [str(i % 2) for i in range(config.points)])
    for step in range(config.steps + 1):
        if config.fail and step == 2:
            if config.fail == "config":
                raise ConfigError("data set 'x': column 'text' missing")
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        if config.gated and not _wait_for_permit(stop):
            return
        time.sleep(config.delay)  # a slow step
        snapshot = None
        if config.points:
            snapshot = np.random.default_rng(step).normal(size=(config.points, 8)).astype(np.float32)
        yield Row(step, {"loss": 1.0 / (step + 1), "seconds": step * 0.1}, snapshot)
        if stop.is_set():
            return


@pytest.fixture
def slow_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    register(monkeypatch, "slow", __name__, ("step", "loss", "seconds"))
    monkeypatch.setattr(f"{__name__}.GATE", threading.Semaphore(0))
    STARTED.clear()
    return "slow"


@pytest.fixture
def registry(tmp_path: Path):
    reg = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    yield reg
    reg.shutdown()


@pytest.fixture
def instant_umap(monkeypatch: pytest.MonkeyPatch) -> None:
    """UMAP frames without UMAP: zeros at once (the projection worker's scheduling is under test, not
    UMAP)."""
    monkeypatch.setattr(
        engine.charts.projection_frames,
        "umap_frame",
        lambda X, previous=None, knn=None, seed=0, **kw: np.zeros((len(X), 2), dtype=np.float32),
    )
    monkeypatch.setattr(engine.metrics, "knn", lambda X, k: (None, None))


def test_jobs_run_in_submission_order_and_log_everything(registry, slow_kind) -> None:
    first = registry.submit(slow_kind, {"steps": 3, "delay": 0.02}, name="first")
    second = registry.submit(slow_kind, SlowConfig(steps=4), name="second")
    assert second.state == "queued"
    assert registry.wait_idle(120)
    assert STARTED == ["3-0.02", "4-0.0"]
    assert first.state == second.state == "finished"
    assert first.started <= second.started
    assert first.rows.metrics()["step"].tolist() == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(first.rows.metrics(), runlog.read_metrics(first.run_dir))
    assert runlog.read_metrics(second.run_dir)["step"].tolist() == [0, 1, 2, 3, 4]
    assert first.progress()[0] == 1.0
    assert first.summary["final"]["step"] == 3
    assert first.run_dir.name.startswith("first-")


def test_stop_running_and_cancel_queued(registry, slow_kind) -> None:
    running = registry.submit(slow_kind, {"steps": 10_000, "gated": True})
    queued = registry.submit(slow_kind, {"steps": 3})
    for _ in range(3):
        GATE.release()
    wait_for(lambda: running.rows.last_step == 2, what="three rows of the running job")
    queued.stop()
    assert queued.state == "stopped"
    rows_at_stop = len(running.rows.records())
    running.stop()
    for _ in range(10):  # the run may go on, but ends after the step in progress
        GATE.release()
    wait_for(lambda: running.state == "stopped", what="the stop")
    assert registry.wait_idle(120)
    assert len(running.rows.records()) <= rows_at_stop + 1  # at most one row after Stop
    assert len(STARTED) == 1  # the cancelled job never started
    assert runlog.run_state(running.run_dir) == "stopped"
    assert not queued.run_dir.exists()
    assert len(runlog.read_metrics(running.run_dir)) == len(running.rows.records())


@pytest.mark.parametrize("fail, text", [("config", "column 'text' missing"), ("oom", "CUDA out of memory")])
def test_failure_becomes_a_failed_job_and_the_worker_goes_on(registry, slow_kind, fail, text) -> None:
    bad = registry.submit(slow_kind, {"steps": 5, "fail": fail})
    good = registry.submit(slow_kind, {"steps": 2})
    assert registry.wait_idle(120)
    assert bad.state == "failed" and text in bad.error and "\n" not in bad.error
    assert bad.rows.metrics()["step"].tolist() == [0, 1]  # the rows before the error are kept
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
    assert registry.wait_idle(120)
    assert len({job.run_dir for job in made}) == 2
    for job in made:
        steps = runlog.read_metrics(job.run_dir)["step"].tolist()
        assert steps == list(range(job.config.steps + 1))
        assert runlog.run_state(job.run_dir) == "finished"


def test_speed_eta_and_progress_while_running(registry, slow_kind) -> None:
    job = registry.submit(slow_kind, {"steps": 200, "delay": 0.01})
    wait_for(lambda: (job.rows.last_step or 0) >= 10, what="ten rows")
    fraction, text = job.progress()
    assert 0 < fraction < 1 and text.startswith("step ")
    # a pace and a time left once rows came in at two looks (their values: tests/jobs/test_rows.py)
    assert job.rows.steps_per_second() is not None and job.eta_seconds() is not None
    job.stop()
    assert registry.wait_idle(120)
    assert job.eta_seconds() is None  # only while running


def test_snapshots_are_bounded_and_pca_view_is_instant(registry, slow_kind) -> None:
    job = registry.submit(slow_kind, {"steps": 8, "points": 30})
    assert registry.wait_idle(120)
    kept = job.pictures._snapshots
    assert len(kept) == settings.get("keep_snapshots") and max(kept) == 8
    method, step, coords = job.view()
    assert (method, step, coords.shape) == ("pca", 8, (30, 2))
    assert list(job.pictures.points()["label"][:2]) == ["0", "1"]
    job.pictures.film.add(8, np.ones((30, 2)))
    assert job.view()[0] == "umap"
    assert runlog.list_frames(job.run_dir) == [(8, runlog.frame_path(job.run_dir, 8))]


def test_attach_finished_lists_runs_on_disk_including_interrupted(tmp_path: Path, slow_kind) -> None:
    first = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    job = first.submit(slow_kind, {"steps": 3, "points": 10})
    assert first.wait_idle(120)
    job.pictures.film.add(3, np.zeros((10, 2)))
    first.shutdown()
    # a run whose writer died: status "running", its lock released (as the kernel does at the writer's death)
    dead = tmp_path / "runs" / "dead-run"
    writer = runlog.RunWriter(dead, ["step", "loss"], {"kind": "slow", "steps": 9})
    writer.append({"step": 0, "loss": 1.0})
    writer._lock.release()
    (tmp_path / "runs" / "junk").mkdir()  # foreign folder: skipped

    second = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    try:
        added = {j.id: j for j in second.attach_finished()}
        assert set(added) == {job.id, "dead-run"}
        assert added["dead-run"].state == "interrupted"
        assert added["dead-run"].rows.metrics()["step"].tolist() == [0]
        again = added[job.id]
        assert again.state == "finished" and again.from_disk
        pd.testing.assert_frame_equal(again.rows.metrics(), job.rows.metrics())
        assert again.view()[0] == "umap" and 3 in again.frames()
        assert len(again.pictures.points()) == 10
        assert again.summary == job.summary
        assert second.attach_finished() == []  # idempotent
    finally:
        second.shutdown()


def test_a_run_written_by_another_process_is_followed_row_by_row(registry, tmp_path: Path) -> None:
    """Attached while it is written (here by a RunWriter of the test, alive): whole rows appear as they are
    written, a row still being written does not, and the end is seen on the next look."""
    run_dir = registry.runs_root / "elsewhere"
    writer = runlog.RunWriter(run_dir, ["step", "loss"], {"kind": "probe", "steps": 3})
    writer.append({"step": 0, "loss": 1.0})
    [job] = registry.attach_finished()
    assert job.state == "running" and job.active and job.rows.last_step == 0
    writer.append({"step": 1, "loss": 0.5})
    assert job.rows.metrics()["step"].tolist() == [0, 1]
    with open(run_dir / runlog.METRICS, "ab") as handle:
        handle.write(b"2,0.2")  # half a row: not a row yet
    assert job.rows.last_step == 1
    with open(run_dir / runlog.METRICS, "ab") as handle:
        handle.write(b"5\n")
    assert job.rows.records()[-1] == {"step": 2, "loss": 0.25}
    writer.finish("finished", summary={"final": {"step": 2}})
    registry.attach_finished()  # the page's next look
    assert job.state == "finished" and job.summary == {"final": {"step": 2}}
    pd.testing.assert_frame_equal(job.rows.metrics(), runlog.read_metrics(run_dir))


def test_projection_worker_makes_frames_from_the_newest_snapshot(tmp_path: Path, slow_kind) -> None:
    registry = jobs.JobRegistry(tmp_path / "runs", project=True, isolation="thread")
    try:
        job = registry.submit(slow_kind, {"steps": 3, "points": 40, "delay": 0.05})
        assert registry.wait_idle(120)
        wait_for(lambda: 3 in job.frames() or job.pictures.film.error, what="the frame of the last snapshot")
        assert job.pictures.film.error is None
        assert job.frames()[3].shape == (40, 2)
        assert runlog.frame_path(job.run_dir, 3).exists()
        # after the run, the film is back-filled from the snapshots on disk
        assert registry.wait_idle(120, frames=True)
        assert sorted(job.frames()) == [0, 1, 2, 3]
        assert [step for step, _ in runlog.list_frames(job.run_dir)] == [0, 1, 2, 3]
        assert job.missing_film_step() is None
    finally:
        registry.shutdown()


def test_stop_during_a_slow_umap_frame_does_not_wait_for_the_frame(
    tmp_path: Path, slow_kind, monkeypatch
) -> None:
    entered, release = threading.Event(), threading.Event()

    def slow_frame(X, previous=None, knn=None, seed=0, **kwargs):
        entered.set()
        release.wait(120)
        return np.zeros((len(X), 2), dtype=np.float32)

    monkeypatch.setattr(engine.charts.projection_frames, "umap_frame", slow_frame)
    monkeypatch.setattr(engine.metrics, "knn", lambda X, k: (None, None))
    registry = jobs.JobRegistry(tmp_path / "runs", project=True, isolation="thread")
    registry.projection_worker._prewarm = False
    try:
        job = registry.submit(slow_kind, {"steps": 100_000, "points": 20, "delay": 0.01})
        assert entered.wait(60)
        job.stop()
        wait_for(lambda: job.state == "stopped", what="the stop")
        assert not release.is_set()  # the run ended while the frame was still being made
        assert runlog.run_state(job.run_dir) == "stopped"
    finally:
        release.set()
        registry.shutdown(timeout=10)


class _Jobs:
    """A registry as the projection worker sees it: only ``jobs()``."""

    def __init__(self) -> None:
        self.list: list[jobs.Job] = []

    def jobs(self) -> list[jobs.Job]:
        return list(self.list)


def test_live_frames_keep_to_the_cpu_share_and_the_film_back_fills_without_rest(
    tmp_path: Path, slow_kind, instant_umap, monkeypatch
) -> None:
    """While a job trains, the newest snapshot is projected (older ones skipped) and each live frame is
    followed by a rest; after the run the film is back-filled from disk without resting."""
    run_dir = tmp_path / "run"
    summary = runner.run_experiment(slow_kind, SlowConfig(steps=2, points=12), run_dir)
    assert summary["state"] == "finished"
    job = jobs.Job(slow_kind, SlowConfig(steps=2, points=12), run_dir, "run", state="running")
    job.on_event(Row(2, {}, runlog.load_snapshot(runlog.snapshot_path(run_dir, 2))))
    worker = ProjectionWorker(_Jobs(), prewarm=False, live_share=0.25)
    worker.close()  # its thread ends: the test drives it step by step
    rests: list[float] = []
    monkeypatch.setattr(worker, "_rest", rests.append)
    worker.registry.list.append(job)

    assert worker._project_one()
    assert list(job.frames()) == [2] and len(rests) == 1
    assert not worker._project_one()  # older snapshots are not projected while the run goes on
    job.end("finished")
    while worker._project_one():
        pass
    assert list(job.frames()) == [0, 1, 2] and len(rests) == 1


def test_rest_keeps_the_projection_worker_to_its_share_of_one_cpu() -> None:
    assert rest_seconds(cpu_used=0.2, elapsed=0.2, share=0.25) == pytest.approx(0.6)
    assert rest_seconds(cpu_used=0.2, elapsed=1.0, share=0.25) == 0.0  # it waited long enough already
    assert rest_seconds(cpu_used=0.2, elapsed=0.2, share=1.0) == 0.0  # no limit


def test_delete_removes_an_ended_run_and_refuses_a_running_one(tmp_path: Path, slow_kind) -> None:
    registry = jobs.JobRegistry(tmp_path / "runs", project=False, isolation="thread")
    try:
        done = registry.submit(slow_kind, {"steps": 2, "points": 10})
        assert registry.wait_idle(120)
        going = registry.submit(slow_kind, {"steps": 100000, "points": 10, "delay": 0.01})
        wait_for(lambda: going.state == "running", 20, "the second run to start")
        with pytest.raises(ConfigError, match="cannot be deleted"):
            registry.delete(going.id)
        registry.delete(done.id)
        assert registry.get(done.id) is None and not done.run_dir.exists()
        assert going.run_dir.exists()
    finally:
        registry.shutdown()


def test_the_film_back_fill_counts_its_frames_with_rate_and_time_left(tmp_path: Path) -> None:
    from engine.jobs.film import Film
    from engine.runlog.compaction import evenly_spaced as wanted

    steps = list(range(0, 100, 2))  # 50 snapshot steps, a film of 10
    assert wanted(steps, 10) == [steps[i] for i in (0, 5, 11, 16, 22, 27, 33, 38, 44, 49)]
    assert wanted(steps[:3], 10) == steps[:3]
    film, now = Film(tmp_path), [100.0]
    film.clock = lambda: now[0]
    assert film.progress(steps, 10) == (0, 10) and film.progress_text(steps, 10) == "film 0/10 frames"
    now[0] += 30.0  # the first frame's wait (UMAP's warm-up): not counted in the rate
    for step in wanted(steps, 10)[:4]:
        film.add(step, np.zeros((3, 2)), save=False)
    film.skip(wanted(steps, 10)[4], "failed")  # a failed frame counts as handled
    assert film.progress(steps, 10) == (5, 10)
    assert film.progress_text(steps, 10) == "film 5/10 frames"  # no frame timed yet: no estimate
    now[0] += 2.0
    for step in wanted(steps, 10)[5:7]:
        film.add(step, np.zeros((3, 2)), save=False)
    assert film.progress_text(steps, 10) == "film 7/10 frames · 1/s · 3 s left"  # 2 frames in 2 s, 3 to go
    now[0] += 10.0
    film.add(wanted(steps, 10)[7], np.zeros((3, 2)), save=False)
    assert film.progress_text(steps, 10) == "film 8/10 frames · 0.25/s · 8 s left"  # never "0/s"
    for step in wanted(steps, 10)[8:]:
        film.add(step, np.zeros((3, 2)), save=False)
    assert film.progress(steps, 10) == (10, 10) and film.progress_text(steps, 10) is None


def test_the_projection_worker_lowers_its_priority_before_its_umap_warm_up(monkeypatch) -> None:
    """The warm-up (numba's JIT, seconds of a core) runs below the warm spare and the first page."""
    from engine.charts import projection_frames

    order: list[str] = []
    monkeypatch.setattr(ProjectionWorker, "_lower_priority", lambda self: order.append("lowered"))
    monkeypatch.setattr(projection_frames, "prewarm_umap", lambda: order.append("warm-up"))
    worker = ProjectionWorker(_Jobs(), prewarm=True)
    worker.close()
    assert order == ["lowered", "warm-up"]
