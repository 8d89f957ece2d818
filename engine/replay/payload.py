"""What a lesson's page draws, as one JSON object: curves, relation figures and films of the runs.

Numbers travel as base64 of little-endian typed arrays: curves as float64 (the CSV's values, exactly), film
coordinates as float32, planar per frame (``x`` of every point, then ``y``). Colours, labels and hover texts
are stored once per film; a frame carries only its coordinates. Text that Plotly renders (legend names, hover
texts) is HTML-escaped here (Plotly reads a subset of HTML in them); :func:`script_json` makes the whole
object safe inside a ``<script>`` element.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from engine import charts, experiments
from engine.core import measures, settings
from engine.replay.frames import FilmFrames
from engine.replay.source import RunData
from engine.runlog.states import CUT_SHORT

FRAME_MS = 400  # a film frame's time at 1× speed
#: points of a film in the page: more make the file large and each frame slow to draw (SVG); a seeded sample
#: of this many is shown instead, and the page says so
MAX_FILM_POINTS = 5000


def b64(values: Any, dtype: str) -> str:
    """Base64 of ``values`` as a little-endian typed array (``<f8``, ``<f4``)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=np.dtype(dtype)).tobytes()).decode("ascii")


def script_json(value: Any) -> str:
    """JSON that can sit inside ``<script type="application/json">``: ``<``, ``>``, ``&`` and the two
    JavaScript line separators as ``\\u`` escapes, so no text (``</script>``, ``<!--``) can end or change the
    element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def plotly_text(value: object) -> str:
    """User text for a Plotly legend or title: its HTML subset escaped, so the text shows as typed."""
    return html.escape(str(value), quote=False)


def y_column(run: RunData, kind: str) -> str:
    """The y column of relation figure ``kind`` in ``run`` (a class alignment on the alignment–uniformity
    plane where the run has no alignment)."""
    return charts.RELATION_FIGURES[kind].y_column(list(run.metrics))


def shown_relations(run: RunData) -> list[str]:
    """The relation figures of the run's page section (:func:`engine.charts.section_relations`: its pair's
    figure and its run figures); every relation figure for a run of an unknown kind."""
    experiment = experiments.get(run.kind)
    section = experiment.section if experiment is not None else None
    if section is None:
        return charts.section_relations(None, list(charts.RELATION_FIGURES))
    return charts.section_relations(section.pair, section.figures)


def relations_of(run: RunData) -> list[str]:
    """The relation figures of the run's page section it has points on (IsoScore vs silhouette for a probe
    run, the alignment–uniformity plane)."""
    logged = set(run.curves)
    return [
        kind
        for kind in shown_relations(run)
        if {charts.RELATION_FIGURES[kind].x, y_column(run, kind)} <= logged
    ]


def axis_title(kind: str, column: str) -> str:
    """An axis title of relation figure ``kind``: a path figure names a measure by its symbol (as the live
    plane does), a scatter by its label."""
    measure = measures.get(column)
    return str(measure.symbol) if charts.RELATION_FIGURES[kind].path else measure.label


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(float(value)) else None


def curves_of(run: RunData, max_points: int | None = None) -> dict[str, dict[str, str]]:
    """Every metric column of a run: its logged steps and values (at most ``max_points``, evenly spaced)."""
    out = {}
    for column in run.curves:
        series = charts.downsample(run.series(column), max_points or settings.get("chart_points"))
        out[column] = {"x": b64(series["step"], "<f8"), "y": b64(series[column], "<f8")}
    return out


def relation_payload(run: RunData, kind: str) -> dict[str, Any] | None:
    """The run's points of the relation figure (steps where both are logged); for IsoScore vs silhouette,
    Pearson r and Spearman ρ of the two series (:func:`engine.charts.correlations`), as the paper reports
    them. ``legend`` names the run, and a class alignment as such."""
    figure = charts.RELATION_FIGURES[kind]
    x, y = figure.x, y_column(run, kind)
    if x not in run.metrics or y not in run.metrics:
        return None
    both = run.metrics[["step", x, y]].dropna()
    if both.empty:
        return None
    both = charts.downsample(both, 2000)
    corr = None if figure.path else charts.correlations(run.metrics, x, y)  # the paper's r and ρ
    r, rho = (None, None) if corr is None else (_finite(corr[0]), _finite(corr[1]))
    legend = run.name + (" (class alignment)" if y == "class_alignment" else "")
    return {
        "kind": kind,
        "step": b64(both["step"], "<f8"),
        "x": b64(both[x], "<f8"),
        "y": b64(both[y], "<f8"),
        "r": r,
        "rho": rho,
        "legend": plotly_text(legend),
    }


def spectrum_payload(runs: Sequence[RunData]) -> dict[str, Any] | None:
    """The covariance spectrum figure of the runs that logged one (:func:`engine.charts.spectrum_figure`: at
    most :data:`engine.charts.MAX_SPECTRA` lines a run, its numbers as base64 typed arrays), without Plotly's
    template (the page sets its own fonts); None when no run logged a spectrum."""
    found = {
        plotly_text(run.name): run.spectra for run in runs if run.spectra is not None and len(run.spectra)
    }
    if not found:
        return None
    fig = charts.spectrum_figure(found)
    fig.update_layout(template=None)
    return json.loads(fig.to_json())


def film_payload(film: FilmFrames, points: pd.DataFrame | None) -> dict[str, Any]:
    """A film: steps, the points' labels and hover texts once, the coordinates of every frame."""
    total = film.n_points
    keep = np.arange(total)
    if total > MAX_FILM_POINTS:
        keep = np.sort(np.random.default_rng(0).choice(total, MAX_FILM_POINTS, replace=False))
    n = len(keep)
    if points is not None and len(points) == total:
        labels = points["label"].astype(str).iloc[keep].reset_index(drop=True)
        hover = charts._hover(points["text"].iloc[keep])
    else:
        labels = pd.Series(["points"] * n)
        hover = [f"point {i}" for i in keep]
    names = sorted(labels.unique())
    codes = labels.map({name: i for i, name in enumerate(names)}).to_numpy(dtype=np.int64)
    coords = film.coords[:, keep].astype(np.float32)
    lo, hi = coords.reshape(-1, 2).min(axis=0), coords.reshape(-1, 2).max(axis=0)
    pad = 0.05 * (hi - lo + 1e-9)
    return {
        "steps": [int(s) for s in film.steps],
        "n": n,
        "of": total,  # the film's points, of which ``n`` are shown
        "labels": [plotly_text(name) for name in names],
        "codes": codes.tolist(),
        "hover": hover,
        "coords": b64(coords.transpose(0, 2, 1), "<f4"),  # (frames, 2, n): x of every point, then y
        "range": [
            [float(lo[0] - pad[0]), float(hi[0] + pad[0])],
            [float(lo[1] - pad[1]), float(hi[1] + pad[1])],
        ],
    }


def film_note(run: RunData, film: FilmFrames | None) -> str | None:
    """Why a run's film is missing or partial (plain text), None when it is whole."""
    if film is None:
        every = run.config.get("snapshot_every")
        if isinstance(every, int) and every > 0 and run.state in CUT_SHORT:
            return (
                f"{run.name} was {run.state} before its first embedding snapshot (one every {every} steps), "
                "so it has no UMAP film."
            )
        return (
            f"{run.name} kept no embedding snapshots, so it has no UMAP film: the film needs snapshots. "
            "Set “UMAP frame every k steps” in the app's sidebar (--snapshot-every N on the command line) "
            "before Start."
        )
    if not film.steps:
        return f"{run.name}: the film's UMAP frames are not made yet. " + " ".join(film.notes)
    notes = list(film.notes)
    if film.n_points > MAX_FILM_POINTS:
        notes.append(
            f"{run.name}: the film shows a seeded sample of {MAX_FILM_POINTS:,} of its {film.n_points:,} "
            "sentences, so that it stays quick to play."
        )
    return " ".join(notes) or None


def payload(runs: Sequence[RunData], films: Sequence[FilmFrames | None]) -> dict[str, Any]:
    """The page's data: the runs with their curves, relation points and films, the metrics and relation
    figures."""
    metrics: list[str] = []
    relations: list[str] = []
    out_runs = []
    for index, (run, film) in enumerate(zip(runs, films)):
        metrics += [column for column in run.curves if column not in metrics]
        found = {kind: relation_payload(run, kind) for kind in relations_of(run)}
        found = {kind: value for kind, value in found.items() if value is not None}
        relations += [kind for kind in found if kind not in relations]
        out_runs.append(
            {
                "name": run.name,
                "legend": plotly_text(run.name),
                "kind": run.kind,
                "color": charts.color(index),
                "dash": charts.dash(index),
                "baselines": {
                    key: charts.baselines([run.summary], key)
                    for key in run.curves
                    if charts.baselines([run.summary], key)
                },
                "curves": curves_of(run),
                "relations": found,
                "film": film_payload(film, run.points) if film is not None and film.steps else None,
                "film_note": film_note(run, film),
            }
        )
    return {
        "version": 1,
        "runs": out_runs,
        "metrics": [{"key": key, "label": plotly_text(charts.label(key))} for key in metrics],
        "relations": [
            {
                "kind": kind,
                "title": plotly_text(charts.RELATION_FIGURES[kind].caption),
                "x": axis_title(kind, charts.RELATION_FIGURES[kind].x),
                "y": charts.CLASS_ALIGN_TITLE
                if any(y_column(run, kind) == "class_alignment" for run in runs if kind in relations_of(run))
                else axis_title(kind, charts.RELATION_FIGURES[kind].y[0]),
            }
            for kind in sorted(relations)
        ],
        "spectrum": spectrum_payload(runs),
        "palette": list(charts.PALETTE),
        "frame_ms": FRAME_MS,
    }
