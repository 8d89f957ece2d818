"""Projector mode's curves: what the chart beside the film shows, opened on the lesson's measures.

An experiment's page section declares them as data (:attr:`engine.core.declaration.Section.projector`:
SimCSE the alignment–uniformity plane and STS, JEPA RankMe); with two or more, projector mode opens on
:data:`LESSON`, all of them side by side (beside the film where the runs have snapshots), and the picker
still offers each measure, the spectrum, the relation of the picked pair and each run figure alone. A
section that declares none opens on the measure its lesson is about (:func:`lesson_measure`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine import charts, experiments
from engine.jobs import Job
from ui import lens, live_state
from ui.controls import KEEP

RELATION = live_state.RELATION
RUN_FIGURE = live_state.RUN_FIGURE
LESSON = live_state.LESSON


def _experiment(jobs: list[Job]) -> Any:
    return experiments.EXPERIMENTS.get(jobs[0].kind) if jobs else None


def lesson_measure(jobs: list[Job], metrics: list[str]) -> str | None:
    """The measure the lesson of the shown runs' experiment is about (:mod:`engine.experiments`): its
    ``measure`` where the lesson names one, else the first measure its text explains that the page offers,
    the loss excepted; None without a lesson."""
    experiment = _experiment(jobs)
    lesson = experiment.lesson if experiment is not None else None
    if lesson is None:
        return None
    named = getattr(lesson, "measure", None)
    if named in metrics:
        return named
    return next((m for m in lesson.measures if m in metrics and m != "loss"), None)


def lesson_curves(jobs: list[Job], metrics: list[str], figures: tuple[str, ...]) -> tuple[str, ...]:
    """The curve choices (a measure, or :data:`RUN_FIGURE` + a run figure's name) that the shown runs'
    section declares for projector mode, those the page offers, in its order."""
    experiment = _experiment(jobs)
    section = experiment.section if experiment is not None else None
    shown = set(charts.projector_figures(figures))
    found = []
    for name in section.projector if section is not None else ():
        if name in shown:
            found.append(RUN_FIGURE + name)
        elif name in metrics:
            found.append(name)
    return tuple(found)


def opening(jobs: list[Job], metrics: list[str], figures: tuple[str, ...]) -> str | None:
    """What projector mode opens on: :data:`LESSON` for two or more declared curves, the one declared, else
    the lesson's measure."""
    declared = lesson_curves(jobs, metrics, figures)
    if len(declared) > 1:
        return LESSON
    return declared[0] if declared else lesson_measure(jobs, metrics)


def chosen_now(key: str, default: str | None) -> str | None:
    """The curve choice this page run will draw (the picker's, before it is drawn)."""
    return st.session_state.get(f"{key}.projcurve", default)


def curve_choice(
    metrics: list[str],
    relation: bool,
    key: str,
    default: str | None = None,
    *,
    figures: tuple[str, ...] = (),
    lesson: tuple[str, ...] = (),
) -> str:
    """Projector mode: which curve is shown beside the film (the ``lesson``'s curves together, a metric, the
    spectrum, the relation of the picked pair, or one of the page's run figures, by :data:`RUN_FIGURE` + its
    name: the alignment–uniformity plane with each run's path among them); at first ``default``, else the
    first option."""
    shown = [RUN_FIGURE + name for name in charts.projector_figures(figures)]
    together = [LESSON] if len(lesson) > 1 else []
    options = [*together, *metrics, lens.SPECTRUM, *([RELATION] if relation else []), *shown]
    names = {metric: lens.name_of(metric) for metric in [*metrics, lens.SPECTRUM]}
    names |= {RELATION: "Relation of two measures"}
    names |= {option: charts.FIGURE_NAMES.get(option[len(RUN_FIGURE) :], option) for option in shown}
    short = [names.get(curve, curve).split(":")[0] for curve in lesson]  # a figure's name up to its colon
    names |= {LESSON: "The lesson's measures: " + " and ".join(short)}
    return st.selectbox(
        "Curve beside the film",
        options,
        index=options.index(default) if default in options else 0,
        format_func=names.get,
        key=f"{key}.projcurve",
        label_visibility="collapsed",  # projector mode only: the curve's title names it
        **KEEP,
    )
