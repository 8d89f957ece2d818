"""UMAP frames made in a child process of their own, at a low priority, for the projection worker.

Why not a thread of the web server: umap-learn's numba kernels and their compilation hold the GIL for
seconds, and a thread given a high nice value that holds the GIL is then descheduled holding it. Beside a
training child on 2 busy cores, that priority inversion kept every script run of the server waiting: a
page in projector mode was running 92 % of the time, its charts greyed out, and a browser test waiting for
an idle page timed out (2026-12-08, docs/performance.md, "The UMAP frames leave the server"). A child
process has its own GIL, and its nice value weighs it against the training only.

The protocol is the child's stdin and stdout: a JSON line, then the arrays it announces in NumPy's ``.npy``
format (``allow_pickle=False``): no pickle crosses it. Anything a library prints to the child's stdout goes
to its stderr (the server's log) instead.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import threading
import time
from typing import IO, Any

import numpy as np

from engine.core import paths
from engine.core.errors import one_line

#: the child's command (``-c``: ``-m`` would import this module twice, once through ``engine.jobs``)
CHILD_MAIN = "from engine.jobs.frame_process import main; main()"


class FrameProcessError(RuntimeError):
    """The frame's child failed or ended; the message says why in one line."""


def make_frame(snapshot: np.ndarray, previous: np.ndarray | None, k: int, seed: int) -> np.ndarray:
    """One UMAP frame of ``snapshot`` (n, d): exact ``k`` nearest neighbours (none under 5 points), warm
    started at ``previous`` (n, 2) when given (:func:`engine.charts.projection_frames.umap_frame`)."""
    from engine.charts.projection_frames import umap_frame
    from engine.metrics import knn

    neighbours = knn(snapshot, k) if len(snapshot) >= 5 else None
    # n_neighbors = k: a k-NN narrower than UMAP's n_neighbors is ignored, and UMAP then searches its own
    # (pynndescent: over a minute of numba compilation at the first frame)
    return umap_frame(snapshot, previous=previous, knn=neighbours, seed=seed, n_neighbors=k)


def warm_up() -> None:
    """Compile umap-learn's kernels (:func:`engine.charts.projection_frames.prewarm_umap`)."""
    from engine.charts.projection_frames import prewarm_umap

    prewarm_umap()


# ------------------------------------------------------------------------------------- the wire format


def write_message(stream: IO[bytes], header: dict[str, Any], arrays: tuple[np.ndarray, ...] = ()) -> None:
    """``header`` as one JSON line (with the byte size of each array that follows), then each array in
    ``.npy`` format."""
    blobs = []
    for array in arrays:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
        blobs.append(buffer.getvalue())
    stream.write(json.dumps({**header, "sizes": [len(blob) for blob in blobs]}).encode() + b"\n")
    for blob in blobs:
        stream.write(blob)
    stream.flush()


def read_message(stream: IO[bytes]) -> tuple[dict[str, Any], list[np.ndarray]]:
    """The next message of ``stream``; EOFError when it has ended (also in the middle of a message)."""
    line = stream.readline()
    if not line:
        raise EOFError("the stream ended")
    header = json.loads(line)
    arrays = []
    for size in header.pop("sizes"):
        blob = stream.read(int(size))
        if len(blob) != int(size):
            raise EOFError("the stream ended inside an array")
        arrays.append(np.lib.format.read_array(io.BytesIO(blob), allow_pickle=False))
    return header, arrays


# ----------------------------------------------------------------------------------------- the child


def _lower_own_priority(nice: int) -> None:
    """This process at nice ``nice`` with one numba and one torch thread (threads made later inherit it)."""
    from engine.compute.priority import lower_thread_priority

    lower_thread_priority(nice)
    import numba
    import torch

    numba.set_num_threads(1)
    torch.set_num_threads(1)


def answer(header: dict[str, Any], arrays: list[np.ndarray]) -> tuple[dict[str, Any], tuple[np.ndarray, ...]]:
    """The child's answer to one request: a frame (with the CPU seconds it took) or the warm-up."""
    cpu = time.process_time()
    try:
        if header["task"] == "warm_up":
            warm_up()
            made: tuple[np.ndarray, ...] = ()
        else:
            previous = arrays[1] if len(arrays) > 1 else None
            made = (make_frame(arrays[0], previous, int(header["k"]), int(header["seed"])),)
    except Exception as err:  # noqa: BLE001 - the worker records it as this frame's error
        return {"ok": False, "error": one_line(err)}, ()
    return {"ok": True, "cpu": time.process_time() - cpu}, made


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Answer each request of ``requests`` on ``answers`` until ``requests`` ends."""
    while True:
        try:
            header, arrays = read_message(requests)
        except EOFError:
            return  # the server closed the pipe, or ended
        try:
            write_message(answers, *answer(header, arrays))
        except BrokenPipeError:
            return


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The UMAP child of the projection worker.")
    parser.add_argument("--nice", type=int, default=10)
    nice = parser.parse_args(argv).nice
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a library's print must not break the protocol
    _lower_own_priority(nice)
    serve(sys.stdin.buffer, answers)


# ---------------------------------------------------------------------------------------- the parent


class FrameProcess:
    """The server's side: one child, started at the first request (and again after it died), asked one
    request at a time; :meth:`close` kills it (its own ``Popen``: never a signal to a stored PID)."""

    def __init__(self, nice: int = 10):
        self.nice = nice
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def frame(
        self, snapshot: np.ndarray, previous: np.ndarray | None, k: int, seed: int
    ) -> tuple[np.ndarray, float]:
        """``(frame, CPU seconds the child spent on it)``; FrameProcessError when it failed."""
        arrays = (snapshot,) if previous is None else (snapshot, previous)
        header, made = self._ask({"task": "frame", "k": int(k), "seed": int(seed)}, arrays)
        return made[0], float(header["cpu"])

    def warm_up(self) -> None:
        self._ask({"task": "warm_up"}, ())

    def _ask(
        self, header: dict[str, Any], arrays: tuple[np.ndarray, ...]
    ) -> tuple[dict[str, Any], list[np.ndarray]]:
        with self._lock:
            proc = self._running()
            try:
                write_message(proc.stdin, header, arrays)
                answer_header, made = read_message(proc.stdout)
            except (OSError, EOFError, ValueError) as err:
                self._end(proc)
                raise FrameProcessError(f"the UMAP child ended ({one_line(err)})") from err
        if not answer_header.get("ok"):
            raise FrameProcessError(answer_header.get("error", "the UMAP child failed"))
        return answer_header, made

    def _running(self) -> subprocess.Popen:
        if self._closed:
            raise FrameProcessError("the projection worker is closed")
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", CHILD_MAIN, "--nice", str(self.nice)],
                cwd=paths.REPO_ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                process_group=0,  # Ctrl-C in the server's terminal is the server's to handle
            )
        return self._proc

    @staticmethod
    def _end(proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def close(self, timeout: float = 5.0) -> None:
        """Kill the child (a frame under way ends with FrameProcessError in its thread, which then reaps
        it); later requests are refused."""
        self._closed = True
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        if self._lock.acquire(timeout=timeout):  # no request under way: reap it here
            try:
                self._end(proc)
            finally:
                self._lock.release()
