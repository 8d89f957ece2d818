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

import streamlit as st

from ui import projector
from ui.controls import KEEP
from ui.lens_figures import SPECTRUM as SPECTRUM
from ui.lens_figures import chart_frames as chart_frames
from ui.lens_figures import name_of as name_of
from ui.lens_figures import pair_figure as pair_figure
from ui.lens_figures import spectra_of as spectra_of
from ui.lens_figures import spectrum_figure as spectrum_figure


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
        label_visibility="collapsed",  # one row of the chart bar (ui/chart_bar.py): its chips say what it is
        help="Every measure is logged and downloadable; this chooses the charts. The isotropy "
        "family: IsoScore, RankMe (effective rank), average cosine, partition isotropy I(W), and "
        "the covariance spectrum (see the Glossary).",
    )


def pair_picker(metrics: list[str], default: tuple[str, str], key: str) -> tuple[str, str] | None:
    """The relation figure's x and y measures (any two the page logs, the loss excepted); None (no relation
    figure) where the page offers fewer than two."""
    options = [m for m in metrics if m not in ("loss",)]
    if len(options) < 2:
        return None
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
