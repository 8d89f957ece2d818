"""The geometry lens's figures and data, without Streamlit (the live feed's thread builds them too): the
runs' metrics as charted, the covariance spectrum of each shown run (followed while it grows), the relation
of any two measures. The pickers are in :mod:`ui.lens`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine import charts, runlog
from engine.core.errors import DataError, one_line
from engine.jobs import Job
from ui import player
from ui.run_facts import run_label

SPECTRUM = charts.SPECTRUM


def name_of(measure: str) -> str:
    """A measure's name in the pickers (the spectrum chart's too), from the measure registry."""
    return charts.label(measure)


_TAILS: dict[
    str, runlog.SpectrumTail
] = {}  # this server's spectrum tails, by run folder (pages and live feed)
_TAILS_LOCK = threading.Lock()


def spectra_of(job: Job) -> tuple[runlog.Spectra, str | None]:
    """The spectra of ``job`` read so far (its file followed by byte offset), and the one-line reason when its
    ``spectrum.csv`` is damaged (then no spectrum)."""
    key = str(job.run_dir)
    with _TAILS_LOCK:
        tail = _TAILS.get(key)
        if tail is None:
            tail = _TAILS[key] = runlog.SpectrumTail(job.run_dir)
        try:
            tail.read_new()
            return tail.spectra(), None
        except (DataError, ValueError) as err:
            _TAILS.pop(key, None)
            return runlog.Spectra(np.zeros(0, dtype=np.int64), np.zeros((0, 0))), one_line(err)


def chart_frames(jobs: list[Job]) -> dict[str, pd.DataFrame]:
    """The shown runs' metrics by run label, as charted (the probe's ``alignment`` as ``class_alignment``)."""
    return {run_label(job): charts.charted(job.rows.metrics(), job.kind) for job in jobs}


def pair_figure(
    runs: dict[str, pd.DataFrame],
    pair: tuple[str, str],
    on: Callable[[str], str | None],
    style: Any = None,
    *,
    as_json: bool = False,
) -> go.Figure | dict | None:
    """The relation figure of ``pair`` for the runs that log both measures, else None; ``as_json``: as plain
    Plotly JSON, unstyled (for the live view)."""
    x, y = pair
    if not (charts.available_metrics(runs, [x]) and charts.available_metrics(runs, [y])):
        return None
    if as_json:
        return charts.relation_json(runs, x, y, measured_on=on(y) or on(x))
    return charts.relation_figure(runs, x, y, measured_on=on(y) or on(x), style=style)


def spectrum_figure(
    jobs: list[Job],
    on: Callable[[str], str | None],
    share: bool,
    style: Any = None,
    *,
    as_json: bool = False,
    steps: dict[str, int] | None = None,
) -> tuple[go.Figure | dict | None, list[str]]:
    """The covariance spectrum of the shown runs that log one (None when none does), and a line for each run
    whose ``spectrum.csv`` is damaged (shown under the charts). ``as_json``: as plain Plotly JSON, unstyled
    (for the live view). ``steps``: the step the player shows of a paced run, by id (its spectra cut there,
    as its curves, :mod:`ui.player`). No Streamlit call: the live feed's thread builds it too."""
    found, errors = {}, []
    for job in jobs:
        spectra, error = spectra_of(job)
        spectra = player.played_spectra(spectra, (steps or {}).get(job.id))
        if error:
            errors.append(f"{run_label(job)}: no spectrum shown ({error}).")
        elif len(spectra):
            found[run_label(job)] = spectra
    if not found:
        return None, errors
    if as_json:
        return charts.spectrum_json(found, share=share, measured_on=on("isoscore")), errors
    return charts.spectrum_figure(found, share=share, measured_on=on("isoscore"), style=style), errors
