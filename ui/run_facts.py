"""What the pages say about a run, without Streamlit (the live feed's thread uses it too): its label (its
name), its settings line, its progress line, whether its charts still change."""

from __future__ import annotations

import time

from engine.jobs import Job, JobRegistry
from engine.runlog.events import duration_text
from engine.runlog.states import CUT_SHORT, RunState
from ui import player


def run_label(job: Job) -> str:
    """The run's name, unique among the server's runs (:attr:`engine.jobs.Job.label`: ``name (2)`` for the
    second run of a name): what pickers, legends, tables and downloads call it."""
    return getattr(job, "label", None) or job.name


def settings_line(job: Job) -> str:
    """A compact line of the run's main settings (``probe · demo · 150 steps · lr 0.001 · seed 0``)."""
    from engine.runlog.naming import settings_line as line

    return line(job.kind, job.config_dict)


def changing(job: Job, reg: JobRegistry) -> bool:
    """Whether a run's charts or frames still change: it is queued or running, UMAP frames are to come, or
    the player has rows of it still to show at its lecture pace (:mod:`ui.player`)."""
    return job.active or reg.projecting(job) or player.playing(job)


def progress_text(job: Job) -> tuple[float, str]:
    fraction, phase = job.progress()
    if job.state in CUT_SHORT:  # an ended run says how it ended, where
        phase = f"{job.state} at {phase}" if phase.startswith("step ") else job.state
    parts = [f"{run_label(job)} — {phase}" if job.state != RunState.QUEUED else f"{run_label(job)} — queued"]
    started = getattr(job, "started", None)
    if phase == "starting" and started:  # the run's process loads PyTorch and the encoder: no count yet
        waited = duration_text(time.time() - started)
        parts = [f"{run_label(job)} — starting (loading PyTorch and the encoder) · {waited}"]
    rate, eta = job.rows.steps_per_second(), job.eta_seconds()
    if rate:
        parts.append(f"{rate:.1f} steps/s")
    if eta is not None:
        parts.append(f"{duration_text(eta)} left")
    return fraction, " · ".join(parts)
