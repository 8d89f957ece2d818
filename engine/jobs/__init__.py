"""Background jobs of the lab's server: queued experiment runs, their children, and their UMAP frames.

One concern a module:

- :mod:`~engine.jobs.registry`: :class:`JobRegistry`, the FIFO queue and its one worker thread (runs in a
  child process each, or in the worker thread itself); failures of any kind become ``failed`` jobs with a
  one-line message and the worker goes on with the next job;
- :mod:`~engine.jobs.job`: :class:`Job`, the live, thread-safe view of one run: its place in the queue
  (:class:`engine.runlog.states.RunState`), the events of the process that runs it, and what it reads of
  its folder. The run folder is the one source of truth: rows are tailed from ``metrics.csv`` the same way
  for a run started here, by another server, or by the CLI (attached from disk);
- :mod:`~engine.jobs.rows`: reading a run's rows (:class:`~engine.jobs.rows.RunRows`) and their pace;
- :mod:`~engine.jobs.pictures`: a run's snapshots, film, points and projection view
  (:class:`~engine.jobs.pictures.RunPictures`);
- :mod:`~engine.jobs.film`: a run's UMAP frames (written and read through :mod:`engine.runlog`);
- :mod:`~engine.jobs.children`: starting a child, its thread count, following its stdout events, Stop
  (SIGTERM, SIGKILL after a grace period) and its outcome;
- :mod:`~engine.jobs.spare`: the warm spare child; :mod:`~engine.jobs.spare_entry`: the code it runs;
- :mod:`~engine.jobs.projection_worker`: :class:`ProjectionWorker`, the thread that picks and files UMAP
  frames; :mod:`~engine.jobs.frame_process`: the low-priority child that makes them in the app (its own
  GIL: numba's kernels never stall the server's script runs).

The spare is started as ``python -c "from engine.cli import serve_spare; serve_spare(ready_fd=N)"`` (N: its
ready pipe, :func:`engine.jobs.spare.spare_command`).
"""

from engine.compute.lanes import usable_cpus
from engine.jobs.children import ChildRun, default_child_threads, popen_child
from engine.jobs.job import Job
from engine.jobs.projection_worker import ProjectionWorker
from engine.jobs.registry import ISOLATIONS, JobRegistry
from engine.jobs.spare import SparePool
from engine.jobs.spare_entry import serve_one, warm_default_encoder

__all__ = [
    "ISOLATIONS",
    "ChildRun",
    "Job",
    "JobRegistry",
    "ProjectionWorker",
    "SparePool",
    "default_child_threads",
    "popen_child",
    "serve_one",
    "usable_cpus",
    "warm_default_encoder",
]
