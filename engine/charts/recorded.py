"""The charts of a preset's recorded runs (:class:`engine.groups.recorded.RecordedGroup`) at a played step:
one group per run of the preset, its mean line with a ± 1 sd band over its seeds (:mod:`engine.charts.bands`)
for each measure of the lesson that was logged (STS, uniformity, alignment), and the alignment–uniformity
plane with each group's mean path (:mod:`engine.charts.plane_paths`, as the paper's Figure 2), every one cut
at the step the page's player shows (:mod:`engine.core.pace`), as one chart description
(:mod:`engine.charts.description`) with the step marked on the curves and the step counter as its bar.
"""

from __future__ import annotations

import pandas as pd

from engine.charts import description
from engine.charts.bands import band_json, band_of
from engine.charts.plane_paths import align_uniform_path_json
from engine.charts.run_facts import measured_of
from engine.core import measures
from engine.groups.recorded import RecordedGroup

#: the measures drawn of a recorded group, in order (those its runs logged)
MEASURES = (measures.STS_SPEARMAN, measures.UNIFORMITY, measures.ALIGNMENT, measures.RANKME)
#: the plane's two measures
PLANE = (measures.ALIGNMENT, measures.UNIFORMITY)


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


def recorded_description(group: RecordedGroup, step: int | None) -> description.Description:
    """The chart description of ``group`` at the played ``step``: a band panel per logged measure (the step
    marked), the plane of the groups' mean paths (full width), the step counter."""
    cells = cells_at(group, step)
    panels = [
        description.panel(band_json(cells, metric, measured_on=where(group, metric)), metric, cursor=True)
        for metric in logged(group)
    ]
    plane = align_uniform_path_json(mean_paths(cells), measured_on=where(group, measures.ALIGNMENT))
    if plane is not None:
        panels.append(description.panel(plane, "plane", wide=True))
    return description.description(panels, step=step, progress=[counter(group, step)])


def _config(folder) -> dict:
    from engine.runlog.files import read_json

    try:
        return read_json(folder / "config.json")
    except (OSError, ValueError):
        return {}
