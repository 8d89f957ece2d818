"""The chart bar: the live panel's chart controls in one row above the charts (issue 25: at 1366×768 the
first charts start within the first 400 px). The measures drawn and the run projected stay in view; the
options changed less often (smoothing, log y, zoom to data, x axis, the relation's two measures, the
spectrum's scale) are in a "Chart options" popover. The widget keys are those the separate controls had
(``<key>.smooth``, ``.logy``, ``.x``, ``.zoom``, ``.measures``, ``.relx``, ``.rely``, ``.share``,
``.projected``). In projector mode nothing is shown and the last choices are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui import lens, projector
from ui.controls import KEEP


def chart_options(key: str) -> dict[str, Any]:
    """Smoothing, log-y, x axis and zoom options of the curves (in the chart bar's options; projector mode:
    their last values, not shown)."""
    if projector.on():
        return {
            "smoothing": st.session_state.get(f"{key}.smooth", 0.0),
            "log_y": st.session_state.get(f"{key}.logy", False),
            "x": st.session_state.get(f"{key}.x") or "step",
            "zoom": st.session_state.get(f"{key}.zoom", False),
        }
    smoothing = st.slider("Smoothing (EMA)", 0.0, 0.99, 0.0, 0.01, key=f"{key}.smooth", **KEEP)
    cols = st.columns(2)
    log_y = cols[0].toggle("log y", key=f"{key}.logy", **KEEP)
    zoom = cols[1].toggle(
        "zoom to data",
        key=f"{key}.zoom",
        **KEEP,
        help="Off: IsoScore, silhouette, average cosine and partition isotropy are drawn on their whole "
        "natural range, so a nearly flat curve looks flat; on: each axis fits the values.",
    )
    x = st.segmented_control("x axis", ["step", "seconds"], default="step", key=f"{key}.x", **KEEP) or "step"
    return {"smoothing": smoothing, "log_y": log_y, "x": x, "zoom": zoom}


def spectrum_share(key: str, chosen: list[str]) -> bool:
    """Whether the spectrum is drawn as shares of the variance (a toggle, shown when the spectrum is)."""
    if projector.on() or lens.SPECTRUM not in chosen:
        return bool(st.session_state.get(f"{key}.share", False))
    return st.toggle(
        "Spectrum as share of variance (λₖ / Σλ)",
        key=f"{key}.share",
        **KEEP,
        help="Off: the eigenvalues themselves; on: each as a share of their sum, comparable across "
        "steps whose scale grows.",
    )


@dataclass
class Bar:
    """What the chart bar picked: the curves' options, the measures drawn, the relation pair, the
    spectrum's scale."""

    options: dict[str, Any]
    measures: list[str]
    pair: tuple[str, str] | None
    share: bool


def chart_bar(
    metrics: list[str],
    drawn: list[str],
    pair: tuple[str, str] | None,
    key: str,
    projected: Callable[[], None],
) -> Bar:
    """The chart controls in one row above the charts (issue 25: the first charts within the first 400 px at
    1366×768): the measures drawn, the run projected (``projected()`` draws its picker), and the rarely
    changed options in a popover (smoothing, log y, zoom to data, x axis, the relation's measures, the
    spectrum's scale). The widget keys are those of the separate controls before. Projector mode: nothing
    shown, the last choices kept."""
    if projector.on():
        measures = lens.measure_picker(metrics, drawn, key)
        xy = lens.pair_picker(metrics, pair, key) if pair is not None else None
        return Bar(chart_options(key), measures, xy, spectrum_share(key, measures))
    cols = st.columns([5, 3, 2], vertical_alignment="bottom")
    with cols[0]:
        measures = lens.measure_picker(metrics, drawn, key)
    with cols[1]:
        projected()
    with cols[2].popover("Chart options", icon=":material/tune:", width="stretch"):
        options = chart_options(key)
        xy = lens.pair_picker(metrics, pair, key) if pair is not None else None
        share = spectrum_share(key, measures)
    return Bar(options, measures, xy, share)
