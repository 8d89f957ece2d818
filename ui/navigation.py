"""The app's pages and its start, declared once: ``app.py`` calls :func:`main`.

The page scripts live in ``views/``, not in ``pages/``: Streamlit lists every script of a ``pages/`` folder
as a page, and on a fresh server runs the one a URL names (``/compare``) directly, without ``app.py``, until
``st.navigation`` is first called. With no ``pages/`` folder every run of every session goes through
``app.py``, and ``st.navigation`` routes it to the page its URL names (public APIs only).
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from pathlib import Path

import streamlit as st

from engine.core.setting_checks import problems

FOLDER = "views"
#: the browser tab's icon
FAVICON = Path(__file__).resolve().with_name("web") / "favicon.png"
#: the pages before and after the experiments' (script, title, icon); the first is the default page
FIRST = [(f"{FOLDER}/overview.py", "Overview", ":material/home:")]
LAST = [
    (f"{FOLDER}/compare.py", "Compare runs", ":material/compare_arrows:"),
    (f"{FOLDER}/data.py", "Data & encoders", ":material/dataset:"),
    (f"{FOLDER}/glossary.py", "Glossary", ":material/menu_book:"),
]


#: what the experiment pages import when first shown (torch with the encoders, the presets, the page code):
#: seconds on a cold server, which a first click on the Overview's demo waited on (its run builds the presets,
#: then the page it opens is drawn); imported by :func:`import_pages_ahead` once the first page is drawn
PAGE_IMPORTS = ("engine.compute.device", "engine.encoders", "engine.lessons.presets", "ui.experiment")


def page_list() -> list[tuple[str, str, str]]:
    """Every page (script, title, icon): the overview, each registered experiment's page in the registry's
    order (its :class:`~engine.core.declaration.Section`), then Compare, Data and the Glossary. Read at every
    run: an experiment registered later has its page with no edit here."""
    from engine.experiments import EXPERIMENTS

    experiments = [
        (e.section.page, e.section.title or e.title, e.section.icon)
        for e in EXPERIMENTS.values()
        if e.section is not None
    ]
    return [*FIRST, *experiments, *LAST]


PAGES = page_list()  # as the app starts (the tests read the titles)


def pages() -> list[st.Page]:
    return [
        st.Page(script, title=title, icon=icon, default=index == 0)
        for index, (script, title, icon) in enumerate(page_list())
    ]


def main() -> None:
    """The app: page config, navigation, job registry, then the page the URL (or the sidebar) chose."""
    from ui import feed, live_view, projector
    from ui.runs import registry

    st.set_page_config(
        page_title="embedlab",
        page_icon=str(FAVICON),  # a file: a Material icon is fetched from the web (the lab runs offline)
        layout="wide",
        initial_sidebar_state="collapsed" if projector.on() else "auto",
    )
    page = st.navigation(pages())
    for line in problems():  # a bad setting: its line on every page (a run that needs it fails saying so)
        st.error(
            f"Runs will not start until this is fixed and the app restarted: {line}",
            icon=":material/settings:",
        )
    registry()  # starts the job worker and the UMAP worker (which pre-warms umap-learn's JIT) once
    live_view.serve_plotly()  # the live view's Plotly.js in the static folder, before a page needs it
    projector.switch()  # on every page, first in the sidebar after the page list
    feed.forget(st.session_state.get("live.session", ""))  # a page's live view follows its feed again
    page.run()
    import_pages_ahead()  # after the first page is drawn (a rerun or page switch ends the run before it)


@st.cache_resource(show_spinner=False)
def import_pages_ahead() -> threading.Thread:
    """Once per server: import :data:`PAGE_IMPORTS` on a thread of its own, while the reader reads the first
    page (a page that needs one meanwhile waits for that import only, Python's import lock)."""

    def target() -> None:
        for module in PAGE_IMPORTS:
            with contextlib.suppress(Exception):  # a failed import fails again, saying why, where it is used
                importlib.import_module(module)

    thread = threading.Thread(target=target, name="embedlab-page-imports", daemon=True)
    thread.start()
    return thread
