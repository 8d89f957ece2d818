"""Collapse, seen coming, on the charts: a vertical line at the step where a run's RankMe fell below the
declared share of its start (:func:`engine.core.collapse_onset.onset_step`,
:data:`engine.core.measures.COLLAPSE_ONSET`), in the run's colour, on every curve over steps.

The marks are Plotly ``shapes`` and ``annotations`` of the figure's layout: part of the chart description
(:mod:`engine.charts.description`), drawn by the one renderer, in the live view and the replay alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from engine.core.collapse_onset import onset_step
from engine.core.measures import COLLAPSE, RANKME

#: the words on a mark, short: a projector's 18-px text over a narrow chart
MARK_TEXT = "collapse begins"


def onsets(runs: Mapping[str, pd.DataFrame]) -> dict[str, float]:
    """Each run's collapse onset step (run name -> step), for the runs whose RankMe fell that far, among
    the runs that log the collapse lens (:data:`~engine.core.measures.COLLAPSE`: non-contrastive training);
    a run that logs RankMe alone (the probe, whose rank falls as its clusters form) is not watched."""
    found = {}
    for name, frame in runs.items():
        if "step" not in frame or not all(measure in frame for measure in COLLAPSE):
            continue
        values = pd.to_numeric(frame[RANKME], errors="coerce")
        steps = pd.to_numeric(frame["step"], errors="coerce")
        step = onset_step(zip(steps.tolist(), values.tolist(), strict=True))
        if step is not None:
            found[name] = float(step)
    return found


def onset_marks(
    runs: Mapping[str, pd.DataFrame], colors: Mapping[str, str]
) -> dict[str, list[dict[str, Any]]]:
    """Plotly ``shapes`` (a dotted vertical line across the plot) and ``annotations`` (:data:`MARK_TEXT` at
    its top) at each run's onset step, in the run's colour (``colors``: run name -> colour)."""
    shapes, notes = [], []
    for name, step in onsets(runs).items():
        color = colors.get(name, "#d62728")
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=step,
                x1=step,
                y0=0,
                y1=1,
                line=dict(color=color, width=2, dash="dot"),
            )
        )
        if any(note["x"] == step for note in notes):
            continue  # one text per step: two runs collapsing together share it
        notes.append(
            dict(
                x=step,
                xref="x",
                y=1,
                yref="paper",
                text=MARK_TEXT,
                showarrow=False,
                xanchor="left",
                yanchor="top",
                font=dict(color=color),
            )
        )
    return {"shapes": shapes, "annotations": notes}
