"""The words the lab teaches with: each experiment's lesson, plain definitions for the Overview, and the
glossary of the measures. The pages, the glossary and the HTML lecture replay (:mod:`engine.replay`) all read
them from here, so a lesson says the same thing everywhere.

- :data:`LESSONS` / :func:`lesson` — each experiment's title, introduction and what to watch, declared in its
  registry entry (:attr:`engine.core.declaration.Experiment.lesson`), with its numbers filled from the runs of
  the claims that back them (:mod:`engine.lessons.numbers`);
- :data:`DEFINITIONS` — alignment, uniformity and anisotropy in plain words (the Overview, before it uses
  them);
- :class:`Term` / :func:`glossary` — one entry per measure of the measure registry
  (:data:`engine.core.measures.MEASURES`) that has its own: plain words, formula (LaTeX, as KaTeX renders it),
  range, which way is better, what to watch in each experiment (its lesson's ``measures``), and the paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import experiments
from engine.core.declaration import Lesson
from engine.core.measures import MEASURES, range_text
from engine.lessons.numbers import fill_lesson


@dataclass(frozen=True)
class Term:
    """A glossary entry: formula (LaTeX), range, which way is better, what to watch in each experiment and
    the source."""

    name: str
    label: str
    plain: str
    formula: str
    range: str
    better: str
    higher_means: str
    unit: str
    watch: dict[str, str]
    source: str


#: each experiment's lesson with its figures filled from the lessons check's recorded runs
#: (:mod:`engine.lessons.numbers`)
LESSONS: dict[str, Lesson] = {kind: fill_lesson(taught) for kind, taught in experiments.lessons().items()}

#: plain-word definitions the Overview gives before it uses the words
DEFINITIONS: dict[str, str] = {
    "alignment": "how close the two views of the same sentence land: small is good (positives stay "
    "together).",
    "uniformity": "how evenly all sentences spread over the sphere: more negative is more spread out.",
    "anisotropy": "the embeddings crowd into a few directions of the space instead of using all of them; "
    "isotropy is the opposite, every direction used alike.",
}

_BETTER = {"higher": "Higher is better", "lower": "Lower is better", "neither": "Neither: read its shape"}


def glossary() -> list[Term]:
    """The glossary's terms in the registry's reading order: every measure with an entry of its own, its
    texts from the measure registry and what to watch from each experiment's lesson."""
    terms = []
    for measure in MEASURES.values():
        if not measure.in_glossary:
            continue
        watch = {
            kind: taught.measures[measure.name]
            for kind, taught in LESSONS.items()
            if measure.name in taught.measures
        }
        terms.append(
            Term(
                name=measure.name,
                label=measure.label,
                plain=measure.plain,
                formula=measure.formula,
                range=range_text(*measure.range),
                better=_BETTER[measure.better],
                higher_means=measure.higher_means,
                unit=measure.unit,
                watch=watch,
                source=measure.source,
            )
        )
    return terms


def lesson(kind: str, configs: Iterable[Mapping[str, Any]] = ()) -> Lesson:
    """The lesson of experiment ``kind``, its figures those of the version of its presets whose runs the
    run ``configs`` are (the lecture version's where one of them is a lecture run and they are recorded,
    else the full presets'), so that a page never prints other runs' figures than those it shows without
    saying so (the introduction ends with the runs they come from)."""
    from engine.lessons.presets import lecture_runs_among

    taught = LESSONS[kind]
    configs = list(configs)
    names = {claim.preset for claim in taught.claims}
    if configs and names and lecture_runs_among(configs, names):
        if kind not in _LECTURE_LESSONS:
            _LECTURE_LESSONS[kind] = fill_lesson(experiments.lessons()[kind], short=True)
        return _LECTURE_LESSONS[kind]
    return taught


_LECTURE_LESSONS: dict[str, Lesson] = {}  # the lessons filled with their lecture versions' figures, on use
