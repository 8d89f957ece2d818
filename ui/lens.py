"""The geometry lens of the chart panel: which measures are drawn, the relation of any two of them, the
covariance spectrum of each shown run (followed while it grows), and the runs' metrics as charted.

- :func:`measure_picker` — "Measures drawn": the page's measures (and the spectrum chart) the user wants to
  see; the others are still logged and downloadable.
- :func:`pair_picker` — the relation figure's x and y: any two measures the page logs.
- :func:`spectra_of` — a run's ``spectrum.csv`` (:class:`engine.runlog.SpectrumTail`, one per run and
  server, read by byte offset: a poll reads only the rows added since the last one).
- :func:`chart_frames` — the shown runs' metrics as the charts name them (:func:`engine.charts.charted`:
  the probe's alignment is its class alignment).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from engine import charts, runlog
from engine.errors import DataError, one_line
from engine.jobs import Job
from ui import projector
from ui.controls import KEEP
from ui.runs import run_label

SPECTRUM = charts.SPECTRUM
NAMES = {SPECTRUM: "Covariance spectrum"}


def name_of(measure: str) -> str:
    """A measure's name in the pickers (the spectrum chart's too)."""
    return NAMES.get(measure) or charts.label(measure)


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
    return {run_label(job): charts.charted(job.metrics(), job.kind) for job in jobs}


def measure_picker(metrics: list[str], default: list[str], key: str) -> list[str]:
    """ "Measures drawn": which of ``metrics`` (and the spectrum chart) are drawn; projector mode keeps the
    last choice without showing the picker."""
    options = [*metrics, SPECTRUM]
    slot = f"{key}.measures"
    if projector.on():
        return list(st.session_state.get(slot) or default)
    if slot not in st.session_state:
        st.session_state[slot] = [m for m in default if m in options]
    return st.multiselect(
        "Measures drawn",
        options,
        key=slot,
        format_func=name_of,
        **KEEP,
        placeholder="pick measures to draw",
        help="Every measure is logged and downloadable; this chooses the charts. The isotropy "
        "family: IsoScore, effective rank, average cosine, partition isotropy I(W), and "
        "the covariance spectrum (see the Glossary).",
    )


def pair_picker(metrics: list[str], default: tuple[str, str], key: str) -> tuple[str, str]:
    """The relation figure's x and y measures (any two the page logs, the loss excepted)."""
    options = [m for m in metrics if m not in ("loss",)]
    slots = (f"{key}.relx", f"{key}.rely")
    for slot, value in zip(slots, default):
        if st.session_state.get(slot) not in options:
            st.session_state[slot] = value if value in options else options[0]
    if projector.on():
        return st.session_state[slots[0]], st.session_state[slots[1]]
    cols = st.columns(2)
    x = cols[0].selectbox(
        "Relation: x",
        options,
        key=slots[0],
        format_func=name_of,
        **KEEP,
        help="Any two logged measures, one point per logged step; the legend gives each run's "
        "Pearson r and Spearman ρ of the two series.",
    )
    y = cols[1].selectbox("Relation: y", options, key=slots[1], format_func=name_of, **KEEP)
    return x, y


def pair_figure(
    runs: dict[str, pd.DataFrame],
    pair: tuple[str, str],
    on: Callable[[str], str | None],
    style: Any = None,
    *,
    as_json: bool = False,
) -> go.Figure | dict | None:
    """The relation figure of ``pair`` for the runs that log both measures, else None; ``as_json``: as plain
    Plotly JSON, unstyled (for the live canvas)."""
    x, y = pair
    if not (charts.available_metrics(runs, [x]) and charts.available_metrics(runs, [y])):
        return None
    if as_json:
        return charts.relation_json(runs, x, y, measured_on=on(y) or on(x))
    return charts.relation_figure(runs, x, y, measured_on=on(y) or on(x), style=style)


def spectrum_figure(
    jobs: list[Job], on: Callable[[str], str | None], share: bool, style: Any = None, *, as_json: bool = False
) -> tuple[go.Figure | dict | None, list[str]]:
    """The covariance spectrum of the shown runs that log one (None when none does), and a line for each run
    whose ``spectrum.csv`` is damaged (shown under the charts). ``as_json``: as plain Plotly JSON, unstyled
    (for the live canvas). No Streamlit call: the live feed's thread builds it too."""
    found, errors = {}, []
    for job in jobs:
        spectra, error = spectra_of(job)
        if error:
            errors.append(f"{run_label(job)}: no spectrum shown ({error}).")
        elif len(spectra):
            found[run_label(job)] = spectra
    if not found:
        return None, errors
    if as_json:
        return charts.spectrum_json(found, share=share, measured_on=on("isoscore")), errors
    return charts.spectrum_figure(found, share=share, measured_on=on("isoscore"), style=style), errors
