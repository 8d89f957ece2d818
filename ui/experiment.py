"""The run panel of an experiment page (SimCSE, Isotropy): everything below the page's own settings."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from engine import charts
from engine.core.declaration import Experiment
from engine.core.errors import EmbedlabError
from engine.jobs import Job
from engine.lessons import texts as lessons
from ui import controls, downloads, fields, lens, links, live, live_state, projector, recorded, run_name, runs
from ui.text import message, plain

GLOSSARY = "views/glossary.py"
PAGE_CSS = Path(__file__).resolve().with_name("web") / "page.css"
_CLAUSE = re.compile(r"^(.+?)(?:[.:;](?:\s|$))")


def first_clause(text: str) -> str:
    """The first clause of a page's introduction (up to its first ``.``, ``:`` or ``;``): the one line shown
    above the charts; the whole text is one click away."""
    found = _CLAUSE.match(text.strip())
    return found.group(1) if found else text.strip()


def page_css() -> None:
    """The page frame's CSS (``ui/web/page.css``: less space above a smaller title)."""
    st.html(f"<style>{PAGE_CSS.read_text(encoding='utf-8')}</style>")


def glossary_link() -> None:
    """The link to the Glossary that every experiment page shows (in its "About" popover)."""
    st.page_link(
        GLOSSARY,
        label="Glossary: what each measure means, its formula and what to watch",
        icon=":material/menu_book:",
    )


def page_header(title: str, intro: str) -> None:
    """An experiment page's title with an "About" popover beside it (the whole introduction and the
    Glossary link), then the introduction's first clause in one line: the live charts start right under
    them (a room's screen is 768 px tall). Projector mode shows the title alone, small."""
    page_css()
    if projector.on():  # the charts take the screen: a small title (page.css; the root font is larger there)
        with st.container(key="projector-title"):
            st.title(title)
        return
    heading, more = st.columns([6, 1], vertical_alignment="center")
    heading.title(title)
    with more.popover("About", icon=":material/info:", width="stretch"):
        st.markdown(intro)
        glossary_link()
    st.caption(first_clause(intro) + ".")


def start_blockers(
    experiment: Experiment, config: dict[str, Any], check: Callable[[dict[str, Any]], None] | None
) -> list[str]:
    """Why Start is off, in the pages' words: the fields out of their range (their knobs' declared checks,
    :func:`ui.fields.problems`), the page's own check, then the config's cross-field checks (its
    ``__post_init__``); empty when the run can start."""
    found = fields.problems(experiment.kind)  # already in the pages' words (the fields' labels)
    if found:
        return [plain(line) for line in found]
    try:
        if check is not None:
            check(config)
        experiment.make_config(**config)
    except EmbedlabError as err:
        return [message("", err)]
    return []


def start_button(
    experiment: Experiment, config: dict[str, Any], check: Callable[[dict[str, Any]], None] | None
) -> None:
    """▶ Start: off, with the reason under it, while a setting is impossible (Steps = 0, a missing data
    folder, a Limit under the number of classes, ...); else it queues the run."""
    kind = experiment.kind
    blockers = start_blockers(experiment, config, check)
    pressed = st.sidebar.button(
        "Start",
        type="primary",
        icon=":material/play_arrow:",
        key=f"{kind}.start",
        width="stretch",
        disabled=bool(blockers),
    )
    if blockers:  # also when the settings changed since the click: the reason shows, nothing is queued
        st.sidebar.caption(f"Start is off: {' '.join(blockers)}")
    elif pressed:
        with runs.guard("Start: "):
            runs.submit_runs(experiment, [(kind, config)])
            st.rerun()


def picked_pair(experiment: Experiment, pair: tuple[str, str]) -> tuple[str, str]:
    """The pair of measures picked on the page of ``experiment`` (its picker's keys ``<kind>.relx`` and
    ``<kind>.rely``), else its section's ``pair``."""
    x = st.session_state.get(f"{experiment.kind}.relx", pair[0])
    y = st.session_state.get(f"{experiment.kind}.rely", pair[1])
    return x, y


def figure_of(jobs: list[Job], experiment: Experiment, pair: tuple[str, str]) -> Any:
    """The figure the downloads of the page of ``experiment`` give (HTML, SVG, PDF): the relation of the
    picked pair of measures, titled as the page draws it, with the data it was measured on under its title
    (:func:`ui.live_state.where`, as the live view's)."""
    shown = lens.chart_frames(jobs)
    x, y = picked_pair(experiment, pair)
    on = live_state.where(jobs, shown)
    return charts.relation_figure(shown, x, y, measured_on=on(y) or on(x))


def charts_order(experiment: Experiment, measures: tuple[str, ...]) -> list[str]:
    """The page's charts, its lesson's measures first (:func:`engine.core.lesson_claims.lesson_first`)."""
    from engine.core.lesson_claims import lesson_first

    lesson = experiment.lesson
    return lesson_first(lesson.claims if lesson else (), measures)


def damaged_rows_note(jobs: list[Job]) -> None:
    """A line per shown run whose ``metrics.csv`` has malformed rows: they are skipped, and counted here."""
    for job in jobs:
        if job.rows.bad_rows:
            st.caption(
                f"{plain(runs.run_label(job))}: {job.rows.bad_rows} malformed row(s) of metrics.csv skipped; "
                "the other rows are drawn."
            )


@dataclass(frozen=True)
class PageHooks:
    """What a page script hands the shared run panel, checked where the page registers it: ``sidebar()``
    draws the page's settings and returns the run's config; ``check(config)`` (optional) raises a
    one-line :class:`~engine.core.errors.EmbedlabError` before a run is queued. A hook that cannot be called
    so raises TypeError at once, on every render of the page, not at the first click or the first run."""

    sidebar: Callable[[], dict[str, Any]]
    check: Callable[[dict[str, Any]], None] | None = None

    def __post_init__(self) -> None:
        callable_with(self.sidebar, "sidebar", 0)
        if self.check is not None:
            callable_with(self.check, "check", 1)


def callable_with(fn: Any, role: str, count: int) -> None:
    """TypeError unless ``fn`` can be called with ``count`` positional arguments (its signature, bound)."""
    if not callable(fn):
        raise TypeError(f"the page's {role} hook must be a function, got {fn!r}")
    try:
        inspect.signature(fn).bind(*range(count))
    except TypeError as err:
        name = getattr(fn, "__qualname__", repr(fn))
        raise TypeError(f"the page's {role} hook {name} must take {count} argument(s): {err}") from None


def every_knob(experiment: Experiment) -> Callable[[], dict[str, Any]]:
    """The sidebar of an experiment page that composes nothing itself: every knob its config declares a
    widget for, in declaration order, under a header."""

    def sidebar() -> dict[str, Any]:
        st.sidebar.header(f"{experiment.section.title or experiment.title} settings")
        return fields.draw_all(experiment, [item.name for item in fields.drawn_knobs(experiment)])

    return sidebar


def experiment_page(
    experiment: Experiment,
    sidebar: Callable[[], dict[str, Any]] | None = None,
    *,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """The whole page of the registered ``experiment``: its title and introduction (its section's title, its
    lesson's intro), then :func:`run_panel` with ``sidebar`` (default :func:`every_knob`) and ``check``. A
    page script is its sidebar and this one call."""
    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment_page takes the registered Experiment, got {experiment!r}")
    kind = experiment.kind
    header = st.container()  # drawn once the runs shown are known: the lesson prints their version's figures
    shown = run_panel(experiment, sidebar or every_knob(experiment), check=check)
    with header:
        intro = experiment.title
        if kind in lessons.LESSONS:  # its numbers those of the runs shown (recorded ones with none shown)
            intro = lesson_intro(experiment, shown)
        page_header(experiment.section.title or experiment.title, intro)


def lesson_intro(experiment: Experiment, shown: list[Job]) -> str:
    """The lesson's introduction: beside runs of ``experiment``, its words with those runs' own figures
    (:func:`engine.lessons.on_screen.beside`; seeds of one run as a group), or with the recorded group's
    means while a preset's recorded runs are played (:func:`ui.recorded.shown`); with neither, the recorded
    figures with where they come from."""
    from engine.lessons import on_screen

    kind = experiment.kind
    folders = [job.run_dir for job in shown if job.kind == kind]
    if folders:
        groups = on_screen.group_by_seed(folders)
    elif (played := recorded.shown(experiment)) is not None:
        groups = [
            on_screen.Shown(tuple(members), label=run)
            for run, members in played.groups.items()
            if played.kinds.get(run, kind) == kind
        ]
    else:
        return lessons.LESSONS[kind].intro
    return on_screen.beside(kind, groups, name_text=plain).intro


def run_panel(
    experiment: Experiment,
    sidebar: Callable[[], dict[str, Any]],
    *,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> list[Job]:
    """An experiment page below its header, from its :class:`~engine.core.declaration.Section` (the measures,
    those drawn at first, the relation pair, the run figures, the empty-page line): the page's sidebar
    settings (``sidebar()`` draws them and returns the run's config), then ▶ Start and the presets of
    ``experiment``; the live panel of the shown runs and their downloads, or the section's ``empty`` line
    when there is no run yet; last the sidebar's Stop button and progress. Its kind is also the run name and
    the prefix of the widget keys. ``check(config)`` runs before a run is queued. Returns the runs shown."""
    hooks = PageHooks(sidebar, check)
    kind = experiment.kind
    section = experiment.section
    if section is None:
        raise TypeError(f"experiment {kind!r} declares no page section")
    unknown = [name for name in section.figures if name not in charts.RUN_FIGURES]
    if unknown:
        raise TypeError(f"{kind}'s page section names unknown run figures: {', '.join(unknown)}")
    with runs.guard():
        # a link's settings (?preset=NAME, ?KNOB=VALUE), once per session and link
        links.open_link(experiment)
    fields.apply_shown(experiment)  # a preset's or the demo's settings, shown in the sidebar
    fields.begin_fields(kind)
    with runs.guard():
        links.link_notes(experiment)
        config = hooks.sidebar()
        run_name.name_field(experiment, config)  # the name Start gives the next run, made from these settings
        start_button(experiment, config, hooks.check)
        links.copy_link(experiment, config)
        controls.preset_buttons(experiment, config)
        recorded.recorded_buttons(experiment)

    refreshing: list[Job] = []  # runs whose progress the live panel refreshes (the sidebar then need not)
    jobs: list[Job] = []
    with runs.guard():
        played = recorded.recorded_panel(experiment)  # a preset's recorded runs, played (no training)
        jobs = runs.shown_jobs(experiment, beside=section.beside)
        links.copy_runs_link(experiment, [job.id for job in jobs])  # the second link: ?runs=
        if jobs:
            refreshing = live.live_panel(
                jobs,
                charts_order(experiment, section.metrics),
                kind,
                section.figures,
                drawn=charts_order(experiment, section.drawn),
                pair=section.pair,
            )
            damaged_rows_note(jobs)
            if not projector.on() and not live.nothing_to_draw(jobs):
                downloads.downloads(
                    jobs,
                    kind,
                    figure=lambda: figure_of(jobs, experiment, section.pair),
                    chart=charts.relation_title(*picked_pair(experiment, section.pair)),
                )
        elif played is None:
            st.info(section.empty)

    with runs.guard():
        controls.sidebar_controls_footer(experiment, shown_live=refreshing)
    return jobs
