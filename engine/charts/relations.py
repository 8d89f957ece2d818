"""Relation figures: one measure against another per logged step, one colour per run. SimCSE's alignment–
uniformity plane (Gao et al. 2021, Fig. 2), the isotropy paper's IsoScore vs silhouette (Mickus et al. 2024,
Fig. 3) and any pair of measures, each with its runs' Pearson r and Spearman ρ in the legend.

Each figure is built as plain Plotly JSON (``*_json``: what the live view draws every second, no plotly.py
validation) and made a styled ``go.Figure`` from that (``*_figure``: static views, downloads, Compare)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from engine.charts.figures import (
    TITLED,
    ChartStyle,
    available_metrics,
    color,
    dash,
    downsample,
    label,
    numbers,
    plotly_text,
    styled,
    symbol,
    titled,
    titled_layout,
)
from engine.charts.legend import legend_room
from engine.charts.plane_paths import align_uniform_path_panel
from engine.core import measures

#: the y column of the alignment–uniformity plane: SimCSE's alignment, else a probe's class alignment
ALIGNMENT_COLUMNS = ("alignment", "class_alignment")
#: the plane's y title when a run on it draws its class alignment
CLASS_ALIGN_TITLE = f"{measures.get('alignment').symbol} (probe runs: class alignment)"
#: a run figure's builder: ``(runs, where) -> plain Plotly JSON or None`` (``runs`` the shown runs' charted
#: metrics by label, ``where(measure)`` the data a measure was measured on, in words)
Panel = Callable[[Mapping[str, pd.DataFrame], Callable[[str], str | None]], dict[str, Any] | None]


@dataclass(frozen=True)
class RelationFigure:
    """A relation figure: the measure ``y`` against ``x`` per logged step, one colour per run. ``y`` lists the
    columns a run may log for it, first found first (the plane's alignment, else a probe's class alignment);
    ``title`` names it, ``cite`` the paper figure it reproduces; ``path``: each run's points joined in step
    order, its last step starred (else points, each run's r and ρ in its legend); ``picker``: its name in a
    figure picker; ``panel``: its builder as a run figure (``Section.figures``), None for the figure of a
    pair (drawn by :func:`relation_figure`)."""

    x: str
    y: tuple[str, ...]
    title: str
    cite: str
    picker: str
    path: bool = False
    panel: Panel | None = None

    @property
    def caption(self) -> str:
        """The title with its citation: "Alignment vs uniformity (SimCSE Fig. 2; lower-left is better)"."""
        return f"{self.title} ({self.cite})"

    def y_column(self, logged: Sequence[str]) -> str:
        """The y column a run that logged ``logged`` draws (the first of :attr:`y` it has, else the first)."""
        return next((column for column in self.y if column in logged), self.y[0])


def align_uniform_json(
    runs: Mapping[str, pd.DataFrame], *, max_points: int = 400, measured_on: str | None = None
) -> dict[str, Any]:
    """SimCSE Figure 2 as plain Plotly JSON, unstyled: ``l_uniform`` (x) vs ``l_align`` (y), one trajectory
    per run, its last step marked with a star; ``measured_on`` names the evaluation pairs in the title. A
    probe run (its alignment charted as ``class_alignment``, :func:`engine.charts.charted`) is drawn on the
    same plane, named "class alignment" in its legend entry: a SimCSE run and a probe run side by side
    (classifiers pull the class alignment down and uniformity up, contrastive learning pushes uniformity
    down)."""
    traces: list[dict[str, Any]] = []
    classes = False
    for index, (name, frame) in enumerate(runs.items()):
        name = plotly_text(name)  # a run's name as typed, never markup
        column = next((c for c in ALIGNMENT_COLUMNS if c in frame.columns), None)
        if column is None or not {"uniformity", "step"} <= set(frame.columns):
            continue
        points = numbers(frame, ["step", "uniformity", column]).dropna()
        if points.empty:
            continue
        points = downsample(points, max_points)
        what = "alignment" if column == "alignment" else "class alignment"
        classes = classes or column == "class_alignment"
        hover = f"step %{{customdata}}<br>uniformity %{{x:.3f}}<br>{what} %{{y:.3f}}<extra>{name}</extra>"
        traces.append(
            dict(
                type="scatter",
                x=points["uniformity"],
                y=points[column],
                mode="lines+markers",
                name=name if column == "alignment" else f"{name} (class alignment)",
                legendgroup=name,
                line=dict(color=color(index), dash=dash(index)),
                marker=dict(size=5, symbol=symbol(index)),
                customdata=points["step"],
                hovertemplate=hover,
            )
        )
        last = points.iloc[-1]
        traces.append(
            dict(
                type="scatter",
                x=[float(last["uniformity"])],
                y=[float(last[column])],
                mode="markers",
                legendgroup=name,
                showlegend=False,
                marker=dict(color=color(index), size=13, symbol="star"),
                hoverinfo="skip",
            )
        )
    layout = titled_layout(
        TITLED,
        titled(RELATION_FIGURES["align_uniform"].caption, measured_on),
        measures.get("uniformity").symbol,
        CLASS_ALIGN_TITLE if classes else measures.get("alignment").symbol,
    )
    return {"data": traces, "layout": legend_room(layout, traces)}


def align_uniform_figure(
    runs: Mapping[str, pd.DataFrame],
    *,
    max_points: int = 400,
    measured_on: str | None = None,
    style: ChartStyle | None = None,
) -> go.Figure:
    """:func:`align_uniform_json` made into Plotly objects in one ``go.Figure(...)`` call, then styled."""
    return styled(go.Figure(align_uniform_json(runs, max_points=max_points, measured_on=measured_on)), style)


def align_uniform(
    runs: Mapping[str, pd.DataFrame],
    *,
    measured_on: str | None = None,
    style: ChartStyle | None = None,
    as_json: bool = False,
) -> go.Figure | dict[str, Any]:
    """The plane as a view asks for it: plain JSON, unstyled, for the live view (``as_json``:
    :func:`align_uniform_json`), else a styled figure (:func:`align_uniform_figure`)."""
    if as_json:
        return align_uniform_json(runs, measured_on=measured_on)
    return align_uniform_figure(runs, measured_on=measured_on, style=style)


def align_uniform_panel(
    runs: Mapping[str, pd.DataFrame], where: Callable[[str], str | None]
) -> dict[str, Any] | None:
    """The alignment–uniformity plane of the runs that log it (SimCSE, JEPA: alignment of positive pairs;
    the probe: class alignment), as plain JSON, titled with where their uniformity was measured; None when
    no shown run logs an alignment."""
    if not available_metrics(runs, list(ALIGNMENT_COLUMNS)):
        return None
    return align_uniform_json(runs, measured_on=where("uniformity"))


#: the relation figures, declared once: the live view, the finished view, Compare, the downloads and the
#: replay draw them from these entries (the replay: the figures of its runs' page sections,
#: :func:`section_relations`)
RELATION_FIGURES: dict[str, RelationFigure] = {
    "iso_sil": RelationFigure(
        "isoscore",
        ("silhouette",),
        "IsoScore vs silhouette",
        "Mickus et al. 2024, Fig. 3",
        "IsoScore vs silhouette",
    ),
    "align_uniform": RelationFigure(
        "uniformity",
        ALIGNMENT_COLUMNS,
        "Alignment vs uniformity",
        "SimCSE Fig. 2; lower-left is better",
        "Alignment vs uniformity (every step)",
        path=True,
        panel=align_uniform_panel,
    ),
    "align_uniform_path": RelationFigure(
        "uniformity",
        ALIGNMENT_COLUMNS,
        "Alignment vs uniformity: each run's path",
        "SimCSE Fig. 2",
        "Alignment vs uniformity: each run's path (SimCSE Fig. 2)",
        path=True,
        panel=align_uniform_path_panel,
    ),
}
#: the run figures an experiment's page section names (``Section.figures``), by name: their builders
RUN_FIGURES: dict[str, Panel] = {
    name: figure.panel for name, figure in RELATION_FIGURES.items() if figure.panel is not None
}
#: the run figures by name, as a picker offers them
FIGURE_NAMES = {name: RELATION_FIGURES[name].picker for name in RUN_FIGURES}
#: the relation figures that reproduce a paper's figure by their pair of measures, and their captions
PAPER_PAIRS = {
    (figure.x, figure.y[0]): figure.cite for figure in RELATION_FIGURES.values() if figure.panel is None
}


def figure_of_pair(x: str, y: str) -> str | None:
    """The name of the relation figure of the pair ``(x, y)``: y against x (None when none is declared)."""
    return next((name for name, f in RELATION_FIGURES.items() if f.x == x and y in f.y), None)


def section_relations(pair: tuple[str, str] | None, figures: Sequence[str]) -> list[str]:
    """The relation figures a page section shows (its ``pair``'s when one is declared, then its run
    ``figures``), by name, each once; a run's path figure counts as its plane (the replay draws one)."""
    named = [figure_of_pair(*pair) if pair else None, *figures]
    planes = ["align_uniform" if name == "align_uniform_path" else name for name in named]
    return list(dict.fromkeys(name for name in planes if name in RELATION_FIGURES))


#: what projector mode offers for a page's run figure: the figure and its versions for a room's screen
PROJECTOR_FIGURES = {"align_uniform": ("align_uniform_path", "align_uniform")}


def projector_figures(names: Sequence[str]) -> list[str]:
    """The run figures projector mode offers on a page whose section names ``names`` (each once)."""
    return list(dict.fromkeys(found for name in names for found in PROJECTOR_FIGURES.get(name, (name,))))


def run_figures(
    names: Sequence[str],
    runs: Mapping[str, pd.DataFrame],
    where: Callable[[str], str | None] | None = None,
    *,
    style: ChartStyle | None = None,
    as_json: bool = False,
) -> list[Any]:
    """The run figures ``names`` (:data:`RUN_FIGURES`) of ``runs`` that have something to draw: plain JSON
    (``as_json``: the live view) or styled Plotly figures. An unknown name raises KeyError, naming it."""
    on = where or (lambda measure: None)
    found = []
    for name in names:
        if name not in RUN_FIGURES:
            raise KeyError(f"unknown run figure {name!r}; known: {', '.join(RUN_FIGURES)}")
        figure = RUN_FIGURES[name](runs, on)
        if figure is not None:
            found.append(figure if as_json else styled(go.Figure(figure), style))
    return found


def correlations(
    frame: pd.DataFrame, x: str = "isoscore", y: str = "silhouette"
) -> tuple[float, float] | None:
    """Pearson r and Spearman ρ of two metric series (rows where both are present), or None (< 3 rows)."""
    from engine.metrics import series_correlation

    if x not in frame or y not in frame:
        return None
    both = numbers(frame, [x, y]).dropna()
    if len(both) < 3 or both[x].nunique() < 2 or both[y].nunique() < 2:
        return None
    r, rho = series_correlation(both[x].to_numpy(), both[y].to_numpy())
    return float(r), float(rho)


def iso_sil_figure(
    runs: Mapping[str, pd.DataFrame],
    *,
    max_points: int = 800,
    measured_on: str | None = None,
    style: ChartStyle | None = None,
) -> go.Figure:
    """The isotropy paper's Figure 3: IsoScore (x) vs silhouette (y), a :func:`relation_figure`."""
    return relation_figure(
        runs, "isoscore", "silhouette", max_points=max_points, measured_on=measured_on, style=style
    )


def relation_figure(
    runs: Mapping[str, pd.DataFrame], x: str, y: str, *, style: ChartStyle | None = None, **options: Any
) -> go.Figure:
    """``y`` against ``x`` per logged step (rows where both are logged), one colour per run, each run's
    Pearson r and Spearman ρ in its legend entry ("r, ρ: too few points" under 3 rows): :func:`relation_json`
    (``options``: its ``max_points``, ``measured_on``) made into Plotly objects in one ``go.Figure(...)``
    call, then styled."""
    return styled(go.Figure(relation_json(runs, x, y, **options)), style)


def relation_json(
    runs: Mapping[str, pd.DataFrame], x: str, y: str, *, max_points: int = 800, measured_on: str | None = None
) -> dict[str, Any]:
    """:func:`relation_figure`'s figure, unstyled, as plain Plotly JSON (what the live view draws)."""
    traces: list[dict[str, Any]] = []
    for index, (name, frame) in enumerate(runs.items()):
        name = plotly_text(name)  # a run's name as typed, never markup
        if x not in frame or y not in frame:
            continue
        points = numbers(frame, list(dict.fromkeys(c for c in ("step", x, y) if c in frame))).dropna()
        if points.empty:
            continue
        corr = correlations(frame, x, y) if x != y else None
        legend = name if corr is None else f"{name}: r = {corr[0]:.3f}, ρ = {corr[1]:.3f}"
        points = downsample(points, max_points)
        traces.append(
            dict(
                type="scatter",
                x=points[x],
                y=points[y],
                mode="markers",
                name=legend,
                marker=dict(color=color(index), size=6, symbol=symbol(index)),
                customdata=points.get("step"),
                hovertemplate="step %{customdata}<br>"
                + f"{label(x)} %{{x:.4g}}<br>{label(y)} %{{y:.4g}}<extra></extra>",
            )
        )
    layout = titled_layout(
        TITLED, titled(relation_title(x, y), measured_on), label(x), label(y), showlegend=True
    )  # the legend carries r and ρ, also for a single run
    return {"data": traces, "layout": legend_room(layout, traces)}


def relation_title(x: str, y: str) -> str:
    """The title of the relation figure of ``y`` against ``x`` ("IsoScore vs Silhouette (the paper's …)"):
    its chart's name on the page, in its downloads' labels and in the exported file."""
    cite = PAPER_PAIRS.get((x, y))
    return f"{short(x)} vs {short(y)}" + (f" ({cite})" if cite else "")


def short(metric: str) -> str:
    """A measure's label without its parenthesis ("Uniformity (lower is better)" -> "Uniformity")."""
    return label(metric).split(" (")[0]
