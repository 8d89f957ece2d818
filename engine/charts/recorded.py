"""The charts of a preset's recorded runs (:class:`engine.groups.recorded.RecordedGroup`) at a played step:
one group per run of the preset, its mean line with a ± 1 sd band over its seeds (:mod:`engine.charts.bands`)
for each measure of the lesson that was logged (STS, uniformity, alignment), and the alignment–uniformity
plane with each group's mean path (:mod:`engine.charts.plane_paths`, as the paper's Figure 2), every one cut
at the step the page's player shows (:mod:`engine.core.pace`), as one chart description
(:mod:`engine.charts.description`) with the step marked on the curves and the step counter as its bar.

In a projector's style (:data:`engine.charts.PROJECTOR`, the one the live charts take in projector mode) the
panels are drawn large, the lesson's charts (``first``: its section's ``projector`` names, SimCSE's plane and
STS) side by side at the top, the others two a row below them; a band's legend then names the group alone
(the caption says that each line is a mean over the seeds, with its ± sd band), so that it takes fewer rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from engine.charts import description
from engine.charts.bands import band_json, band_of
from engine.charts.figures import ChartStyle, styled
from engine.charts.legend import legend_room
from engine.charts.plane_paths import align_uniform_path_json
from engine.charts.run_facts import measured_of
from engine.core import measures
from engine.groups.recorded import RecordedGroup

#: the measures drawn of a recorded group, in order (those its runs logged)
MEASURES = (measures.STS_SPEARMAN, measures.UNIFORMITY, measures.ALIGNMENT, measures.RANKME)
#: the plane's two measures
PLANE = (measures.ALIGNMENT, measures.UNIFORMITY)
#: a figure's width (px) two a row across a projector's 1280 px screen, less the page's padding: its legend's
#: entries are packed in it (:attr:`engine.charts.figures.ChartStyle.width`)
PAIRED_WIDTH = 580
#: the plane's panel key, and the run figure's name a page section's ``projector`` calls it by
PLANE_KEY, PLANE_FIGURE = "plane", "align_uniform_path"


def played(frame: pd.DataFrame, step: int | None) -> pd.DataFrame:
    """``frame``'s rows up to ``step`` (all for None)."""
    if step is None or "step" not in frame:
        return frame
    return frame[pd.to_numeric(frame["step"], errors="coerce") <= step]


def cells_at(group: RecordedGroup, step: int | None) -> dict[str, list[pd.DataFrame]]:
    """Each group's members' metrics up to ``step``."""
    return {name: [played(frame, step) for frame in frames] for name, frames in group.frames.items()}


def mean_paths(cells: dict[str, list[pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """Each group's mean alignment and uniformity by step (the steps every member logged both at)."""
    paths = {}
    for name, frames in cells.items():
        bands = {metric: band_of(frames, metric) for metric in PLANE}
        steps = sorted(set.intersection(*(set(band.steps.tolist()) for band in bands.values())))
        if not steps:
            continue
        means = {
            metric: pd.Series(band.mean, index=band.steps).reindex(steps).to_numpy()
            for metric, band in bands.items()
        }
        paths[name] = pd.DataFrame({"step": steps, **means})
    return paths


def logged(group: RecordedGroup) -> list[str]:
    """The measures of :data:`MEASURES` that some run of the group logged."""
    columns = {column for frames in group.frames.values() for frame in frames for column in frame.columns}
    return [metric for metric in MEASURES if metric in columns]


def where(group: RecordedGroup, metric: str) -> str | None:
    """The data ``metric`` was measured on, in words (from the first run's config and summary)."""
    name = next(iter(group.groups))
    config = _config(group.groups[name][0])
    return measured_of(
        group.kinds.get(name, config.get("kind", "")), metric, config, group.summaries[name][0]
    )


def counter(group: RecordedGroup, step: int | None) -> tuple[float, str]:
    """The step counter: ``(fraction, "Recorded · step 40/100 · lecture pace")``."""
    shown = step if step is not None else group.steps
    return shown / max(group.steps, 1), f"Recorded runs · step {shown}/{group.steps} · lecture pace"


def recorded_description(
    group: RecordedGroup, step: int | None, *, style: ChartStyle | None = None, first: Sequence[str] = ()
) -> description.Description:
    """The chart description of ``group`` at the played ``step``: a band panel per logged measure (the step
    marked), the plane of the groups' mean paths (full width), the step counter. With a ``style`` (a
    projector's), every panel in it and those named in ``first`` (measures, or ``"align_uniform_path"``
    for the plane) leading, in that order (:func:`projected`)."""
    cells = cells_at(group, step)
    short = style is not None  # a projector's legend: the group's name alone
    panels = [
        description.panel(band_panel(cells, metric, where(group, metric), short), metric, cursor=True)
        for metric in logged(group)
    ]
    plane = align_uniform_path_json(mean_paths(cells), measured_on=where(group, measures.ALIGNMENT))
    if plane is not None:
        panels.append(description.panel(plane, PLANE_KEY, wide=True))
    if style is not None:
        panels = projected(panels, style, first)
    return description.description(panels, step=step, progress=[counter(group, step)])


def band_panel(
    cells: dict[str, list[pd.DataFrame]], metric: str, measured_on: str | None, short: bool
) -> dict[str, Any]:
    """The bands of ``metric``, taller by their legend's rows (:func:`engine.charts.legend.legend_room`: in a
    half-width panel a row each, which covered the x axis's labels and title)."""
    figure = band_json(cells, metric, measured_on=measured_on, short_names=short)
    return {**figure, "layout": legend_room(figure["layout"], figure["data"])}


def projected(
    panels: list[description.Panel], style: ChartStyle, first: Sequence[str]
) -> list[description.Panel]:
    """``panels`` in ``style`` (:func:`engine.charts.figures.styled`), two a row (none across the row), those
    named in ``first`` leading in its order, the others after in theirs."""
    keys = [PLANE_KEY if name == PLANE_FIGURE else name for name in first]
    order = {key: place for place, key in enumerate(keys)}
    ranked = sorted(panels, key=lambda found: order.get(found["key"], len(order)))  # stable: the rest kept
    style = replace(style, width=max(style.width or 0, PAIRED_WIDTH))
    return [
        description.panel(
            styled(go.Figure(found["figure"]), style), found["key"], cursor=found["cursor"], wide=False
        )
        for found in ranked
    ]


def _config(folder) -> dict:
    from engine.runlog.files import read_json

    try:
        return read_json(folder / "config.json")
    except (OSError, ValueError):
        return {}
