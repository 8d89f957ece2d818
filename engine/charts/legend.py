"""The legend of a chart: under the plot, one row per run where names are long, and room made for it.

:data:`LEGEND` sits at the bottom edge of the figure (container coordinates), under the x-axis title; the
bottom margin leaves room for both (a legend placed in plot coordinates below the axis overlapped its
title). A legend of several runs takes a row each in a half-width panel: :func:`legend_room` makes the figure
and its bottom margin taller by :data:`LEGEND_ROW` for each entry past the first, so that the plot keeps its
height and the legend does not cover the x axis's labels and title (issue 25, Compare).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LEGEND = dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left")
#: one legend row (12 px text; rows 29 px apart in Chromium)
LEGEND_ROW = 30


def legend_extra(traces: Sequence[Any]) -> int:
    """Pixels a figure needs under its plot for the legend rows of ``traces`` past the first (0 for one)."""

    def field(trace: Any, key: str) -> Any:  # plain JSON or a plotly.py trace
        return trace.get(key) if isinstance(trace, Mapping) else getattr(trace, key, None)

    entries = sum(1 for t in traces if field(t, "name") and field(t, "showlegend") is not False)
    return LEGEND_ROW * max(0, entries - 1)


def legend_room(layout: dict[str, Any], traces: Sequence[Any]) -> dict[str, Any]:
    """``layout`` made taller, and its bottom margin too, by :func:`legend_extra` of ``traces``."""
    extra = legend_extra(traces)
    if not extra:
        return layout
    margin = {**layout["margin"], "b": layout["margin"]["b"] + extra}
    return {**layout, "margin": margin, "height": layout["height"] + extra}
