"""Plotly figures of runs: pure functions of DataFrames (no streamlit), used by the app and scripts.

Conventions follow what people expect from training dashboards (TensorBoard, W&B): runs overlaid with
one colour each, EMA smoothing with the raw series faint behind it, log-y, step or wall-time x axis, and
long series downsampled before they are sent to the browser.

- :func:`ema` — TensorBoard's debiased exponential moving average:
  ``m_t = w·m_{t-1} + (1-w)·x_t``, shown as ``m_t / (1 - w^t)`` (NaN cells are skipped).
- :func:`align_uniform_figure` — SimCSE Figure 2 (Gao et al. 2021): ``l_uniform`` on x, ``l_align`` on y,
  one trajectory per run (Wang & Isola 2020; lower is better on both axes).
- :func:`iso_sil_figure` — the isotropy paper's Figure 3 (Mickus et al. 2024): IsoScore vs silhouette, one
  point per logged step, with Pearson r and Spearman ρ of the two series.
- :func:`spectrum_figure` — the covariance spectrum (log eigenvalue against rank), one line per logged step
  with a colour scale over the steps (one run) or each run's first and last (several): why lines and not a
  heatmap is in :mod:`~engine.charts.geometry`.
- :func:`relation_figure` — any two logged measures against each other, with each run's r and ρ.
- :func:`charted` — a run's metrics as charted (the probe's ``alignment`` is its class alignment).
- :func:`measured_on` — the data a run's measures come from (SimCSE: its evaluation pairs, STS-B dev or the
  built-in demo pairs; the probe: its data set), named in the figures' titles (``measured_on=``).
- :class:`ChartStyle` / :data:`PROJECTOR` — larger text, lines and markers for a projector (``style=``).
- :func:`divergence` — whether a run's loss diverges (NaN/inf, or 10 times its start).

Only Plotly figures: the app's live view and the replay draw them with Plotly.js as chart descriptions
(:mod:`~engine.charts.description`: a figure's JSON in a panel, drawn by ``engine/web/charts.js``).

Modules: :mod:`~engine.charts.figures` (curves, style), :mod:`~engine.charts.relations` (relation figures),
:mod:`~engine.charts.projection` (frames and films), :mod:`~engine.charts.geometry` (spectrum, any-pair
relation), :mod:`~engine.charts.run_facts` (what figures say about a run).

The 2-D frames themselves (an instant PCA, warm-started UMAP) are computed in
:mod:`~engine.charts.projection_frames`.
"""

from engine.charts.figures import (
    AXIS,
    DASHES,
    LAYOUT,
    LEGEND,
    PALETTE,
    PROJECTOR,
    PROJECTOR_WIDE,
    SYMBOLS,
    TITLED,
    X_AXES,
    ChartStyle,
    available_metrics,
    baseline_lines,
    baselines,
    color,
    dash,
    downsample,
    ema,
    label,
    metric_figure,
    metric_json,
    natural_range,
    styled,
    symbol,
    titled,
)
from engine.charts.geometry import (
    MAX_SPECTRA,
    SPECTRUM,
    charted,
    pair_options,
    spectrum_figure,
    spectrum_json,
)
from engine.charts.log_axis import SUPERSCRIPT, log_axis, log_ticks, tick_text
from engine.charts.projection import (
    _hover,
    frames_figure,
    projection_figure,
)
from engine.charts.relations import (
    ALIGNMENT_COLUMNS,
    CLASS_ALIGN_TITLE,
    FIGURE_NAMES,
    RELATION_FIGURES,
    RUN_FIGURES,
    RelationFigure,
    align_uniform,
    align_uniform_figure,
    align_uniform_json,
    correlations,
    iso_sil_figure,
    projector_figures,
    relation_figure,
    relation_json,
    relation_title,
    run_figures,
    section_relations,
)
from engine.charts.run_facts import (
    divergence,
    isoscore_star_series,
    measured_of,
    measured_on,
)

__all__ = [
    "ALIGNMENT_COLUMNS",
    "CLASS_ALIGN_TITLE",
    "FIGURE_NAMES",
    "RELATION_FIGURES",
    "RUN_FIGURES",
    "RelationFigure",
    "DASHES",
    "AXIS",
    "ChartStyle",
    "MAX_SPECTRA",
    "SPECTRUM",
    "LAYOUT",
    "LEGEND",
    "PALETTE",
    "PROJECTOR",
    "PROJECTOR_WIDE",
    "SUPERSCRIPT",
    "SYMBOLS",
    "TITLED",
    "X_AXES",
    "_hover",
    "align_uniform",
    "align_uniform_figure",
    "align_uniform_json",
    "available_metrics",
    "baseline_lines",
    "baselines",
    "charted",
    "color",
    "correlations",
    "projector_figures",
    "dash",
    "divergence",
    "downsample",
    "ema",
    "frames_figure",
    "iso_sil_figure",
    "isoscore_star_series",
    "label",
    "log_axis",
    "log_ticks",
    "measured_of",
    "measured_on",
    "metric_figure",
    "metric_json",
    "natural_range",
    "pair_options",
    "projection_figure",
    "relation_figure",
    "relation_json",
    "relation_title",
    "run_figures",
    "section_relations",
    "spectrum_figure",
    "spectrum_json",
    "styled",
    "symbol",
    "tick_text",
    "titled",
]
