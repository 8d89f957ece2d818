"""The geometry lens: the covariance spectrum, the relation of any two logged measures, the measures offered.

- :func:`spectrum_figure` — the eigenvalues λ₁ ≥ … ≥ λ_d of the sample covariance (``spectrum.csv``,
  :func:`engine.metrics.spectrum`) on a log axis against their rank k. One run: one line per logged step
  (at most :data:`MAX_SPECTRA`, evenly spaced, always the first and the last) coloured from light to dark
  blue over the steps, with a colour bar of the steps. Several runs (Compare): each run's first spectrum
  (thin, faint) and last (thick), in the run's colour.

  *Lines, not a step × rank heatmap*, because on a projector a line's height reads as a number against a
  labelled log axis, while a heatmap's values must be read from colour, which a projector's washed-out
  contrast and gamma distort; the lines also keep the shape Gao et al. (2021, §5) read ("flattens the
  singular value distribution", a flatter line), and a collapse onto as many directions as classes shows
  as a cliff after rank k. The sequential light-to-dark scale keeps the newest step the most visible and
  still reads in greyscale. Numerically zero eigenvalues (rank > n − 1 when n ≤ d, or below
  λ₁ · :data:`FLOOR`, float32 round-off) are left out: on a log axis they would only stretch it.
  ``share=True`` draws λₖ / Σλ (the share of the variance), comparable across steps whose scale grows.
- :func:`charted` — a run's metrics as the charts name them (its experiment's ``charted_as``): the probe's
  ``alignment`` column is its *class* alignment (Wang & Isola's alignment with same-label pairs as
  positives), shown as ``class_alignment`` so that it is never read as SimCSE's alignment of positive pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from engine import experiments
from engine.charts.figures import (
    TITLED,
    ChartStyle,
    color,
    dash,
    plotly_text,
    styled,
    titled,
    titled_layout,
)
from engine.charts.legend import legend_room
from engine.charts.log_axis import log_axis
from engine.core.measures import SPECTRUM, get

#: at most this many spectra drawn for one run (evenly spaced over its logged steps)
MAX_SPECTRA = 12
#: eigenvalues below λ₁ times this are numerical zeros (float32 round-off) and are not drawn
FLOOR = 1e-7
#: the colours of the steps: a light-to-dark part of Plotly's "Blues" (the newest step darkest)
STEP_SCALE = "Blues"
STEP_RANGE = (0.35, 1.0)


def charted(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """``frame`` with its columns named as the charts name them for a ``kind`` run
    (:attr:`engine.core.declaration.Experiment.charted_as`: the probe's ``alignment`` is ``class_alignment``);
    a column is not renamed onto one the frame already has."""
    names = {column: experiments.charted(kind, column) for column in frame.columns}
    renames = {old: new for old, new in names.items() if new != old and new not in frame.columns}
    return frame.rename(columns=renames) if renames else frame


def shown_rows(steps: np.ndarray, most: int = MAX_SPECTRA) -> np.ndarray:
    """Indices of at most ``most`` rows evenly spaced over ``steps``, the first and the last always kept."""
    n = len(steps)
    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).round().astype(int))


def drawable(values: np.ndarray, share: bool = False) -> np.ndarray:
    """One spectrum as drawn: NaN where an eigenvalue is not finite or below λ₁ · :data:`FLOOR` (a numerical
    zero); divided by its finite sum when ``share``."""
    out = np.asarray(values, dtype=float).copy()
    finite = np.isfinite(out)
    if share:
        total = out[finite & (out > 0)].sum()
        out = out / total if total > 0 else np.full_like(out, np.nan)
        finite = np.isfinite(out)
    top = np.nanmax(np.where(finite, out, np.nan)) if finite.any() else np.nan
    out[~finite] = np.nan
    if np.isfinite(top) and top > 0:
        out[out < top * FLOOR] = np.nan
    else:
        out[:] = np.nan
    return out


def _step_colors(steps: np.ndarray) -> list[str]:
    low, high = float(steps.min()), float(steps.max())
    where = np.zeros(len(steps)) if high == low else (steps - low) / (high - low)
    positions = STEP_RANGE[0] + where * (STEP_RANGE[1] - STEP_RANGE[0])
    return sample_colorscale(STEP_SCALE, [float(p) for p in positions])


def spectrum_figure(
    spectra: Mapping[str, Any], *, style: ChartStyle | None = None, **options: Any
) -> go.Figure:
    """The covariance spectra of runs (``{name: Spectra}``, :class:`engine.runlog.Spectra`): see the module
    docstring. Runs without a spectrum are left out; with none at all the figure has no trace. The figure is
    :func:`spectrum_json` (``options``: its ``share``, ``most``, ``measured_on``) made into Plotly objects in
    one ``go.Figure(...)`` call, then styled."""
    return styled(go.Figure(spectrum_json(spectra, **options)), style)


def spectrum_json(
    spectra: Mapping[str, Any],
    *,
    share: bool = False,
    most: int = MAX_SPECTRA,
    measured_on: str | None = None,
) -> dict[str, Any]:
    """:func:`spectrum_figure`'s figure, unstyled, as plain Plotly JSON: what the live canvas paints, without
    the cost of Plotly objects."""
    runs = {plotly_text(name): s for name, s in spectra.items() if s is not None and len(s)}
    traces: list[dict[str, Any]] = []
    if len(runs) == 1:
        name, found = next(iter(runs.items()))
        rows = shown_rows(found.steps, most)
        steps = found.steps[rows]
        colors = _step_colors(steps)
        for i, row in enumerate(rows):
            values = drawable(found.eigenvalues[row], share)
            ends = i in (0, len(rows) - 1)
            traces.append(
                spectrum_line(
                    values,
                    int(steps[i]),
                    name,
                    name=f"step {int(steps[i])}",
                    line=dict(color=colors[i], width=3 if i == len(rows) - 1 else 1.5),
                    showlegend=ends,
                )
            )
        if len(rows) > 1:  # the colour bar of the steps (a point that draws nothing)
            traces.append(
                dict(
                    type="scatter",
                    x=[1],
                    y=[np.nan],
                    mode="markers",
                    showlegend=False,
                    hoverinfo="skip",
                    name="steps",
                    marker=dict(
                        size=0.1,
                        color=[float(steps[0])],
                        cmin=float(steps[0]),
                        cmax=float(steps[-1]),
                        colorscale=[[0, colors[0]], [1, colors[-1]]],
                        showscale=True,
                        colorbar=dict(title=dict(text="step"), thickness=14, len=0.8),
                    ),
                )
            )
        title = f"Covariance spectrum over training<br><sup>{name}</sup>"
    else:
        for index, (name, found) in enumerate(runs.items()):
            for row, width, opacity, when in ((0, 1.5, 0.45, "first"), (len(found) - 1, 3.0, 1.0, "last")):
                if when == "first" and len(found) == 1:
                    continue
                values = drawable(found.eigenvalues[row], share)
                step = int(found.steps[row])
                traces.append(
                    spectrum_line(
                        values,
                        step,
                        name,
                        name=f"{name} · step {step}",
                        legendgroup=name,
                        line=dict(color=color(index), width=width, dash=dash(index)),
                        opacity=opacity,
                    )
                )
        title = "Covariance spectra: first (faint) and last (thick) step of each run"
    values = np.concatenate([np.asarray(t["y"], dtype=float) for t in traces] or [np.zeros(0)])
    layout = titled_layout(
        TITLED,
        titled(title, measured_on),
        "rank k",
        "share of variance λₖ / Σλ" if share else "eigenvalue λₖ",
        showlegend=True,
        y={"type": get(SPECTRUM).scale, **log_axis(values[np.isfinite(values) & (values > 0)])},
    )
    return {"data": traces, "layout": legend_room(layout, traces)}  # its legend's rows under the ticks


def pair_options(runs: Mapping[str, pd.DataFrame], candidates: Sequence[str]) -> list[str]:
    """The candidate measures logged (at least one number) by at least one run, in the candidates' order."""
    from engine.charts.figures import available_metrics

    return available_metrics(runs, list(candidates))


def spectrum_line(values: np.ndarray, step: int, run: str, **style: Any) -> dict[str, Any]:
    """One step's spectrum as a line over the ranks 1…d, its hover naming the step and the ``run``;
    ``style``: the trace's name, line, legend and opacity."""
    return dict(
        type="scatter",
        x=np.arange(1, len(values) + 1),
        y=values,
        mode="lines",
        hovertemplate=f"step {step}<br>rank %{{x}}<br>λ %{{y:.3g}}<extra>{run}</extra>",
        **style,
    )
