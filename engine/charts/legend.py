"""The legend of a chart: under the plot, one row per run where names are long, and room made for it.

:data:`LEGEND` sits at the bottom edge of the figure (container coordinates), under the x-axis title; the
bottom margin leaves room for both (a legend placed in plot coordinates below the axis overlapped its
title). A legend of several runs takes a row each in a half-width panel: :func:`legend_room` makes the figure
and its bottom margin taller by :data:`LEGEND_ROW` for each entry past the first, so that the plot keeps its
height and the legend does not cover the x axis's labels and title (issue 25, Compare).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

LEGEND = dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left")
#: one legend row (12 px text; rows 29 px apart in Chromium)
LEGEND_ROW = 30


#: a legend entry's width beside its text: the line sample and the gap, in 12 px text (scaled with the font)
ENTRY_EXTRA = 46
#: a character's mean width, in the font's size (Plotly's default sans-serif; names are mostly lower case)
CHAR_WIDTH = 0.56
#: the separator of a run name's parts (engine.runlog.naming: ``<preset> · <what differs>``)
PART = " · "


def _field(trace: Any, key: str) -> Any:  # plain JSON or a plotly.py trace
    return trace.get(key) if isinstance(trace, Mapping) else getattr(trace, key, None)


def entry_names(traces: Sequence[Any]) -> list[str]:
    """The legend's entries: the named traces that show in it."""
    return [
        str(_field(t, "name")) for t in traces if _field(t, "name") and _field(t, "showlegend") is not False
    ]


def packed_rows(names: Sequence[str], font: int, width: int) -> int:
    """The rows a horizontal legend of ``names`` takes in ``width`` px (its plot's width) at ``font`` px: all
    in one row where they fit, else in columns as wide as the widest entry (as Plotly wraps a horizontal
    legend), one row at least."""
    if not names:
        return 1
    wide = [len(name) * font * CHAR_WIDTH + ENTRY_EXTRA * font / 12 for name in names]
    if sum(wide) <= width:
        return 1
    per_row = max(1, int(width // max(wide)))
    return -(-len(names) // per_row)


def legend_extra(traces: Sequence[Any], *, font: int = 12, width: int | None = None) -> int:
    """Pixels (in 12 px text) a figure needs under its plot for the legend rows of ``traces`` past the first
    (0 for one): a row each, or (``width``: the figure's width in px) as many as Plotly packs them into."""
    names = entry_names(traces)
    rows = packed_rows(names, font, width) if width and names else len(names)
    return LEGEND_ROW * max(0, rows - 1)


def common_part(names: Sequence[str]) -> str:
    """The first parts (``·``-separated) that every one of several names shares, e.g. ``SimCSE Figure 2``
    of a preset's runs; empty when there is none, or a name would be left empty."""
    if len(names) < 2:
        return ""
    parts = [name.split(PART) for name in names]
    shared = []
    for column in zip(*parts, strict=False):
        if len(set(column)) != 1:
            break
        shared.append(column[0])
    if not shared or any(len(p) <= len(shared) for p in parts):
        return ""
    return PART.join(shared)


def without_part(name: str, part: str) -> str:
    """``name`` less its leading ``part`` (:func:`common_part`)."""
    return name[len(part) + len(PART) :] if part and name.startswith(part + PART) else name


def legend_room(layout: dict[str, Any], traces: Sequence[Any]) -> dict[str, Any]:
    """``layout`` made taller, and its bottom margin too, by :func:`legend_extra` of ``traces``."""
    extra = legend_extra(traces)
    if not extra:
        return layout
    margin = {**layout["margin"], "b": layout["margin"]["b"] + extra}
    return {**layout, "margin": margin, "height": layout["height"] + extra}


def shortened(runs: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``runs`` (by name) with their :func:`common_part` taken off each name (a compact legend), and that
    part (empty when none)."""
    part = common_part(list(runs))
    return part, {without_part(name, part): value for name, value in runs.items()}


def titled_part(figure: Any, part: str) -> Any:
    """``figure`` (a plotly.py figure) with ``part`` (the runs' shared name) on its title's second line."""
    if not part:
        return figure
    text = figure.layout.title.text or ""
    note = f"runs of {html.escape(part, quote=False)}"
    if text.endswith("</sup>"):
        text = text[: -len("</sup>")] + f" · {note}</sup>"
    else:
        text += f"<br><sup>{note}</sup>"
    figure.layout.title.text = text
    return figure
