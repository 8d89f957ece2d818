"""The disk budget: snapshots exact float32 (float16 with a setting; both read), pruned to a few once a
run's film is made, and folder sizes measured as du does, kept until a folder changes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine import runlog
from engine.core.errors import DataError
from engine.runlog import disk
from engine.runlog.compaction import prune_snapshots
from engine.runlog.writer import compact


@settings(max_examples=100, deadline=None)
@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=2, max_dims=2, max_side=8),
        elements=st.floats(-1e6, 1e6, width=32),
    )
)
def test_a_snapshot_is_stored_half_size_and_read_back_as_float32_within_float16_precision(values) -> None:
    stored = compact(values, half=True)
    assert stored.dtype == (np.float16 if np.abs(values).max(initial=0) <= 65504 else np.float32)
    back = stored.astype(np.float32)
    # float16 keeps 11 significant bits: a relative error of at most 2^-11 (subnormals: an absolute 2^-25)
    assert np.all(np.abs(back - values) <= np.abs(values) * 2.0**-11 + 2.0**-24)


def test_snapshots_are_exact_float32_by_default(tmp_path: Path) -> None:
    values = np.random.default_rng(1).normal(size=(20, 6)).astype(np.float32)
    path = _writer(tmp_path / "run").save_snapshot(0, values)
    assert np.load(path).dtype == np.float32 and np.array_equal(runlog.load_snapshot(path), values)


def _writer(run_dir: Path) -> runlog.RunWriter:
    return runlog.RunWriter(run_dir, ["step", "loss"], {"kind": "probe", "data": "demo", "steps": 30})


def test_snapshots_are_float16_on_disk_with_the_setting_and_old_float32_ones_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDLAB_SNAPSHOT_FLOAT16", "1")
    writer = _writer(tmp_path / "run")
    values = np.random.default_rng(0).normal(size=(20, 6)).astype(np.float32)
    path = writer.save_snapshot(0, values)
    writer.finish("finished")
    assert np.load(path).dtype == np.float16 and path.stat().st_size < values.nbytes
    loaded = runlog.load_snapshot(path)
    assert loaded.dtype == np.float32 and np.allclose(loaded, values, rtol=2**-11, atol=1e-7)
    old = runlog.snapshot_path(tmp_path / "run", 5)
    np.save(old, values)  # a folder written before: float32
    assert np.array_equal(runlog.load_snapshot(old), values)
    np.save(old, np.arange(12).reshape(3, 4))  # whole numbers are no snapshot
    with pytest.raises(DataError, match="damaged"):
        runlog.load_snapshot(old)


def _run_with_film(tmp_path: Path, steps: list[int], framed: list[int]) -> Path:
    run_dir = tmp_path / "run"
    writer = _writer(run_dir)
    for step in steps:
        writer.save_snapshot(step, np.full((4, 3), float(step)))
        writer.append({"step": step, "loss": 1.0})
    writer.finish("finished")
    for step in framed:
        runlog.save_frame(run_dir, step, np.zeros((4, 2)))
    return run_dir


def test_a_finished_film_keeps_three_snapshots_and_every_frame(tmp_path: Path) -> None:
    steps = list(range(0, 155, 5))  # the demo: 31 snapshots
    run_dir = _run_with_film(tmp_path, steps, steps)
    assert prune_snapshots(run_dir, film_frames=40) > 0
    kept = [step for step, _ in runlog.list_snapshots(run_dir)]
    assert kept == [0, 75, 150]
    assert [step for step, _ in runlog.list_frames(run_dir)] == steps
    assert prune_snapshots(run_dir, film_frames=40) == 0  # nothing more to remove


def test_a_snapshot_without_its_frame_is_never_removed(tmp_path: Path) -> None:
    steps = list(range(0, 100, 10))
    run_dir = _run_with_film(tmp_path, steps, [s for s in steps if s != 30])
    prune_snapshots(run_dir, film_frames=40)
    kept = {step for step, _ in runlog.list_snapshots(run_dir)}
    assert 30 in kept and {0, 90} <= kept and len(kept) <= 6


def test_a_pruned_run_still_gives_the_whole_film_to_the_replay(tmp_path: Path) -> None:
    from engine.replay import film, load_run

    steps = list(range(0, 155, 5))
    run_dir = _run_with_film(tmp_path, steps, steps)
    prune_snapshots(run_dir, film_frames=40)
    made = film(load_run(run_dir), compute=False, save=False, progress=False)
    assert made is not None and made.steps == steps and made.made == 0


def test_a_registry_run_is_pruned_once_its_film_is_made(tmp_path: Path) -> None:
    from engine.jobs import JobRegistry

    reg = JobRegistry(tmp_path, project=False, isolation="thread", warm=False)
    try:
        job = reg.submit("probe", {"data": "demo", "limit": 60, "steps": 12, "snapshot_every": 1})
        assert reg.wait_idle(240)
        steps = [step for step, _ in runlog.list_snapshots(job.run_dir)]
        assert len(steps) == 13 and job.compact() == 0  # the film is not made yet: nothing goes
        for step in steps:
            job.pictures.film.add(step, np.zeros((60, 2), dtype=np.float32))
        assert job.compact() > 0
        assert len(runlog.list_snapshots(job.run_dir)) == 3 and len(job.frames()) == 13
        assert job.missing_film_step() is None
    finally:
        reg.shutdown()


def test_folder_sizes_count_blocks_and_are_kept_until_the_folder_changes(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "run"
    (folder / "snapshots").mkdir(parents=True)
    (folder / "a.csv").write_bytes(b"x" * 10_000)
    (folder / "snapshots" / "s.npy").write_bytes(b"y" * 50_000)
    size = disk.folder_bytes(folder)
    assert size >= 60_000 and size == sum(
        os.stat(p).st_blocks * 512 for p in [folder / "a.csv", folder / "snapshots" / "s.npy"]
    )
    walks = []
    real = disk._walk
    monkeypatch.setattr(disk, "_walk", lambda path: walks.append(path) or real(path))
    assert disk.folder_bytes(folder) == size and walks == []  # unchanged: not walked again
    os.utime(folder / "snapshots", ns=(1, 1))  # a file added or removed inside changes this time
    (folder / "snapshots" / "t.npy").write_bytes(b"z" * 8192)
    assert disk.folder_bytes(folder) > size and walks == [folder]
    assert disk.folder_bytes(tmp_path / "missing") == 0


def test_the_cache_usage_names_each_part(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EMBEDLAB_CACHE_DIR", str(tmp_path))
    (tmp_path / "runs" / "r").mkdir(parents=True)
    (tmp_path / "runs" / "r" / "metrics.csv").write_bytes(b"1" * 5000)
    usage = disk.cache_usage()
    assert list(usage) == ["runs", "encoders", "uploads", "embedding cache"]
    assert usage["runs"] >= 5000 and usage["uploads"] == 0
    assert disk.size_text(512) == "512 B" and disk.size_text(3 * 2**20) == "3.0 MB"
