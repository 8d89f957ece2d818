"""The run panel of an experiment page (SimCSE, Isotropy): everything below the page's own settings."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from engine import charts
from engine.errors import EmbedlabError
from engine.experiments import EXPERIMENTS
from engine.jobs import Job
from ui import controls, downloads, fields, lens, live, projector, run_name, runs
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
    kind: str, config: dict[str, Any], check: Callable[[dict[str, Any]], None] | None
) -> list[str]:
    """Why Start is off, in the pages' words: the fields out of their range (their knobs' declared checks,
    :func:`ui.fields.problems`), the page's own check, then the config's cross-field checks (its
    ``__post_init__``); empty when the run can start."""
    found = fields.problems(kind)  # already in the pages' words (the fields' labels)
    if found:
        return [plain(line) for line in found]
    try:
        if check is not None:
            check(config)
        EXPERIMENTS[kind].make_config(**config)
    except EmbedlabError as err:
        return [message("", err)]
    return []


def start_button(kind: str, config: dict[str, Any], check: Callable[[dict[str, Any]], None] | None) -> None:
    """▶ Start: off, with the reason under it, while a setting is impossible (Steps = 0, a missing data
    folder, a Limit under the number of classes, ...); else it queues the run."""
    blockers = start_blockers(kind, config, check)
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
            runs.submit_runs(kind, [(kind, config)])
            st.rerun()


def figure_of(jobs: list[Job], kind: str, relation: Any, pair: tuple[str, str] | None) -> Any:
    """The figure the page's HTML download gives: the relation of the picked pair, else the page's own."""
    shown = lens.chart_frames(jobs)
    if pair is not None:
        x = st.session_state.get(f"{kind}.relx", pair[0])
        y = st.session_state.get(f"{kind}.rely", pair[1])
        return charts.relation_figure(shown, x, y)
    return relation(shown)


def damaged_rows_note(jobs: list[Job]) -> None:
    """A line per shown run whose ``metrics.csv`` has malformed rows: they are skipped, and counted here."""
    for job in jobs:
        if job.bad_rows:
            st.caption(
                f"{runs.run_label(job)}: {job.bad_rows} malformed row(s) of metrics.csv skipped; the other "
                "rows are drawn."
            )


def run_panel(
    kind: str,
    sidebar: Callable[[], dict[str, Any]],
    metrics: list[str],
    relation: live.Extras | Any,
    empty: str,
    *,
    check: Callable[[dict[str, Any]], None] | None = None,
    drawn: list[str] | None = None,
    pair: tuple[str, str] | None = None,
) -> None:
    """The page's sidebar settings (``sidebar()`` draws them and returns the run's config), then ▶ Start and
    the presets of ``kind``; the live panel of the shown runs with ``relation`` (the experiment's figure of
    two measures, ``relation(runs, where=..., style=...)``) under the curves, and their downloads, or
    ``empty`` when there is no run yet; last the sidebar's Stop button and progress. ``kind`` is also the run
    name and the prefix of the widget keys. ``check(config)`` runs before a run is queued. ``drawn``: the
    measures drawn at first (the measure picker, default all of ``metrics``); ``pair``: the any-pair relation
    figure's first x and y (drawn before ``relation``'s figure, and the figure the HTML download gives)."""
    fields.apply_shown(kind)  # a preset's or the demo's settings, shown in the sidebar
    fields.begin_fields(kind)
    with runs.guard():
        config = sidebar()
        run_name.name_field(kind, config)  # the name Start gives the next run, made from these settings
        start_button(kind, config, check)
        controls.preset_buttons(kind, config)

    def extras(shown: dict, **options: Any) -> list:
        return [relation(shown, **options)]

    refreshing: list[Job] = []  # runs whose progress the live panel refreshes (the sidebar then need not)
    with runs.guard():
        jobs = runs.shown_jobs(kind)
        if jobs:
            refreshing = live.live_panel(jobs, metrics, kind, extras=extras, drawn=drawn, pair=pair)
            damaged_rows_note(jobs)
            if not projector.on() and not live.nothing_to_draw(jobs):
                downloads.downloads(jobs, kind, figure=lambda: figure_of(jobs, kind, relation, pair))
        else:
            st.info(empty)

    with runs.guard():
        controls.sidebar_controls_footer(kind, shown_live=refreshing)
