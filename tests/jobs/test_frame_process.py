"""The projection worker's UMAP child (engine.jobs.frame_process): its wire format read back whole or refused,
its frames equal to the same frame made in this process, its priority lowered, its end and restart; and the
app's projection worker (process isolation) leaving the server's GIL and priority alone."""

from __future__ import annotations

import io
import json
import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from waiting import wait_for

from engine.compute import priority
from engine.jobs.frame_process import FrameProcess, FrameProcessError, make_frame, read_message, write_message

ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.float32, np.float64, np.int64]),
    shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=6),
)


@given(
    header=st.dictionaries(st.sampled_from(["task", "k", "seed", "ok", "error"]), st.integers() | st.text()),
    arrays=st.lists(ARRAYS, max_size=3),
)
@settings(max_examples=60, deadline=None)
def test_a_message_reads_back_as_written(header: dict, arrays: list[np.ndarray]) -> None:
    stream = io.BytesIO()
    write_message(stream, header, tuple(arrays))
    write_message(stream, {"task": "next"})
    stream.seek(0)
    read_header, read_arrays = read_message(stream)
    assert read_header == header
    assert len(read_arrays) == len(arrays)
    for got, sent in zip(read_arrays, arrays, strict=True):
        assert got.dtype == sent.dtype and got.shape == sent.shape
        np.testing.assert_array_equal(got, sent)
    assert read_message(stream) == ({"task": "next"}, [])  # the next message starts where this one ended


@given(cut=st.integers(min_value=0, max_value=400))
@settings(max_examples=40, deadline=None)
def test_a_stream_cut_anywhere_is_an_end_never_a_short_array(cut: int) -> None:
    whole = io.BytesIO()
    write_message(whole, {"task": "frame"}, (np.arange(40, dtype=np.float32).reshape(20, 2),))
    data = whole.getvalue()
    if cut >= len(data):
        return
    with pytest.raises((EOFError, ValueError)):
        read_message(io.BytesIO(data[:cut]))


def test_an_array_of_python_objects_is_refused_not_unpickled() -> None:
    blob = io.BytesIO()
    np.save(blob, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    stream = io.BytesIO(
        json.dumps({"ok": True, "sizes": [len(blob.getvalue())]}).encode() + b"\n" + blob.getvalue()
    )
    with pytest.raises(ValueError, match="pickle"):
        read_message(stream)


def _clusters(n: int = 90, d: int = 16, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, d)).astype(np.float32)
    points[: n // 3] += 4.0
    points[n // 3 : 2 * n // 3] -= 4.0
    return points


@pytest.fixture(scope="module")
def child():
    made = FrameProcess(nice=10)
    yield made
    made.close()


def test_the_child_makes_the_frame_this_process_makes_and_runs_at_its_nice_value(child: FrameProcess) -> None:
    points = _clusters()
    first, cpu = child.frame(points, None, 15, seed=0)
    assert child.pid is not None and child.pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, child.pid) >= 10
    assert cpu > 0
    np.testing.assert_array_equal(first, make_frame(points, None, 15, seed=0))
    moved = points + np.random.default_rng(4).normal(scale=0.1, size=points.shape).astype(np.float32)
    warm, _ = child.frame(moved, first, 15, seed=0)  # warm started from the first frame
    np.testing.assert_array_equal(warm, make_frame(moved, first, 15, seed=0))


def test_a_frame_the_child_cannot_make_is_an_error_in_one_line(child: FrameProcess) -> None:
    with pytest.raises(FrameProcessError) as caught:
        child.frame(_clusters(12), None, 50, seed=0)  # more neighbours than points
    assert "\n" not in str(caught.value)
    first, _ = child.frame(_clusters(30), None, 10, seed=0)  # the child goes on
    assert first.shape == (30, 2)


def test_a_child_that_died_is_started_again_and_a_closed_one_refuses() -> None:
    tiny = _clusters(4)  # under 5 points the frame is a PCA: the child's handling, without numba's compile
    made = FrameProcess(nice=10)
    try:
        made.frame(tiny, None, 3, seed=0)
        first = made.pid
        made._proc.kill()  # noqa: SLF001 - its own Popen handle, not yet reaped
        made._proc.wait()  # noqa: SLF001
        again, _ = made.frame(tiny, None, 3, seed=0)
        assert again.shape == (4, 2) and made.pid != first
    finally:
        made.close()
    assert made._proc.returncode is not None  # noqa: SLF001 - reaped by close
    with pytest.raises(FrameProcessError, match="closed"):
        made.frame(tiny, None, 3, seed=0)


def test_close_ends_a_frame_under_way_at_once() -> None:
    made = FrameProcess(nice=10)
    failed: list[BaseException] = []

    def ask() -> None:
        try:
            made.frame(_clusters(3000, 64), None, 15, seed=0)  # seconds of work, numba's compilation first
        except FrameProcessError as err:
            failed.append(err)

    asking = threading.Thread(target=ask)
    asking.start()
    wait_for(lambda: made.pid is not None, 10, "the child")
    made.close()
    asking.join(30)
    assert not asking.is_alive() and failed


def test_the_apps_projection_worker_makes_frames_in_the_child_not_in_the_server(monkeypatch) -> None:
    """Process isolation (the app): the warm-up and the frames are the child's; this process's thread is not
    lowered and umap-learn never runs here (the GIL-holding kernels descheduled at a high nice value kept
    every script run of the server waiting)."""
    from engine.charts import projection_frames
    from engine.jobs.projection_worker import ProjectionWorker

    def not_here(*args, **kwargs):
        raise AssertionError("UMAP run in the server's process")

    monkeypatch.setattr(projection_frames, "umap_frame", not_here)
    monkeypatch.setattr(projection_frames, "prewarm_umap", not_here)
    warmed = threading.Event()
    monkeypatch.setattr(FrameProcess, "warm_up", lambda self: warmed.set())  # the child's own: tested above

    class NoJobs:
        def jobs(self) -> list:
            return []

    worker = ProjectionWorker(NoJobs(), prewarm=True, in_child=True)
    try:
        assert warmed.wait(30)
        assert priority.thread_nice(worker._thread.native_id) == priority.thread_nice()  # noqa: SLF001
        job = type("Job", (), {"config_dict": {"seed": 0}})()
        frame, _ = worker._project(job, _clusters(4), None)  # noqa: SLF001 - a PCA in the child: no compile
        assert frame.shape == (4, 2) and worker._child.pid not in (None, os.getpid())  # noqa: SLF001
    finally:
        worker.close()
