"""A run folder on disk, written so that a killed process loses nothing before its last step.

Layout of ``<run>/``:
- ``config.json``   the run's settings, its ``kind`` and its ``name`` (written atomically before the first
                    step; a rename rewrites it atomically, :mod:`~engine.runlog.naming`)
- ``status.json``   ``state`` (running, finished, stopped, failed), pid, times, error (atomic rewrites)
- ``metrics.csv``   one row per logged step, appended with a single ``write`` and flushed per row
- ``spectrum.csv``  the covariance spectrum of the steps that measure it (the probe): header
                    ``step,lambda_1,...,lambda_d``, then one row per such step (eigenvalues, descending),
                    each appended with a single ``write`` before that step's row in ``metrics.csv``
- ``summary.json``  final values (atomic, at the end)
- ``points.csv``    the texts and labels of projected points (when snapshots are kept)
- ``snapshots/step_NNNNNN.npy``  embedding snapshots (``np.save``, never pickled; float32, or float16 with
                    the setting ``snapshot_float16``; once the app has made a finished run's film, all but
                    a few are removed: :mod:`~engine.runlog.compaction`)
- ``error.log``     the full traceback of an unexpected failure (the status holds its one line)
- ``frames/step_NNNNNN.csv``     2-D UMAP frames of snapshots (``x``, ``y``; written by the app's projector)

A run whose status says ``running`` but whose writer is gone reads as ``interrupted`` (the writer holds
``.writer.lock`` while it lives; see :mod:`engine.runlog.liveness`).

The folder is the one source of truth: every reader (the CLI's user, the app that started the run, another
app, the app after a restart) reads rows, points, snapshots and frames from here, never from the writer.
:class:`MetricsTail` follows a ``metrics.csv`` that is still growing, :class:`SpectrumTail` a
``spectrum.csv``; :func:`read_spectrum` reads one whole (:class:`Spectra`).

Modules: :mod:`~engine.runlog.files` (names, atomic JSON, cells), :mod:`~engine.runlog.writer` (the one
writer), :mod:`~engine.runlog.reading` (every reader of one run; :mod:`~engine.runlog.spectrum` its
spectra), :mod:`~engine.runlog.listing` (the run list and the damaged folders),
:mod:`~engine.runlog.liveness` (is the writer alive), :mod:`~engine.runlog.naming` (the run's readable
name, the ``name`` key of ``config.json``).

Also here: a run's events (:mod:`~engine.runlog.events`), the runner that writes an experiment's events
into its folder (:mod:`~engine.runlog.runner`; several side by side in worker processes:
:mod:`~engine.runlog.side_by_side`), downloads (:mod:`~engine.runlog.export`) and disk use
(:mod:`~engine.runlog.disk`).
"""

from engine.runlog import naming
from engine.runlog.files import (
    CONFIG,
    ERROR_LOG,
    FRAMES,
    METRICS,
    POINTS,
    SNAPSHOTS,
    SPECTRUM,
    STATUS,
    SUMMARY,
    format_cell,
    is_disk_full,
    jsonable,
    read_json,
    write_json_atomic,
    write_json_in_place,
)
from engine.runlog.listing import (
    DamagedRun,
    RunInfo,
    damaged_runs,
    delete_damaged,
    list_runs,
    load_run_info,
    run_state,
)
from engine.runlog.liveness import WriterLock, pid_alive, process_start, request_stop, writer_alive
from engine.runlog.naming import clean_name, rename, run_name
from engine.runlog.reading import (
    MetricsTail,
    frame_path,
    list_frames,
    list_snapshots,
    load_frame,
    load_snapshot,
    read_metrics,
    read_points,
    read_summary,
    save_frame,
    snapshot_path,
)
from engine.runlog.spectrum import Spectra, SpectrumTail, read_spectrum
from engine.runlog.states import ACTIVE_STATES, FINAL_STATES, RunState
from engine.runlog.writer import RunWriter

__all__ = [
    "CONFIG",
    "ERROR_LOG",
    "ACTIVE_STATES",
    "FINAL_STATES",
    "RunState",
    "FRAMES",
    "METRICS",
    "POINTS",
    "SNAPSHOTS",
    "SPECTRUM",
    "STATUS",
    "SUMMARY",
    "DamagedRun",
    "MetricsTail",
    "RunInfo",
    "RunWriter",
    "Spectra",
    "SpectrumTail",
    "WriterLock",
    "clean_name",
    "damaged_runs",
    "delete_damaged",
    "format_cell",
    "frame_path",
    "is_disk_full",
    "jsonable",
    "list_frames",
    "list_runs",
    "list_snapshots",
    "naming",
    "load_frame",
    "load_run_info",
    "load_snapshot",
    "pid_alive",
    "process_start",
    "read_json",
    "read_metrics",
    "read_points",
    "read_spectrum",
    "read_summary",
    "run_state",
    "rename",
    "request_stop",
    "run_name",
    "save_frame",
    "snapshot_path",
    "write_json_atomic",
    "write_json_in_place",
    "writer_alive",
]
