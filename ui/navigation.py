"""The app's pages and its start, declared once: ``app.py`` calls :func:`main`, every page :func:`ensure_app`.

Streamlit lists every script of ``pages/`` (and ``app.py``) as a page until ``st.navigation`` is first called
in the server process (and in every run of an ``AppTest``): the first run after a start whose URL names a
page (``/compare``) runs that page script directly, without ``app.py``. :func:`ensure_app` then does what
``app.py`` does before it runs a page (page config, the app's navigation, which replaces that folder listing
in the sidebar and ends it, the job registry and the projector-mode switch), and the page goes on.
"""

from __future__ import annotations

import threading

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

PAGES = [  # script, title, icon; the first is the default page
    ("pages/overview.py", "Overview", ":material/home:"),
    ("pages/simcse.py", "SimCSE training", ":material/model_training:"),
    ("pages/jepa.py", "JEPA (non-contrastive)", ":material/join_inner:"),
    ("pages/isotropy.py", "Isotropy vs clusters", ":material/scatter_plot:"),
    ("pages/compare.py", "Compare runs", ":material/compare_arrows:"),
    ("pages/data.py", "Data & encoders", ":material/dataset:"),
    ("pages/glossary.py", "Glossary", ":material/menu_book:"),
]
_through_app = threading.local()  # set while app.py runs the chosen page (a script run has its own thread)


def pages() -> list[st.Page]:
    return [
        st.Page(script, title=title, icon=icon, default=index == 0)
        for index, (script, title, icon) in enumerate(PAGES)
    ]


def _declare() -> st.Page:
    from ui import feed, projector
    from ui.runs import registry

    st.set_page_config(
        page_title="embedlab",
        page_icon="🧭",
        layout="wide",
        initial_sidebar_state="collapsed" if projector.on() else "auto",
    )
    page = st.navigation(pages())
    registry()  # starts the job worker and the UMAP worker (which pre-warms umap-learn's JIT) once
    projector.switch()  # on every page, first in the sidebar after the page list
    feed.forget()  # a page's live panel feeds its canvas again below; a page without one stops the feed
    return page


def main() -> None:
    """The app: page config, navigation, job registry, then the page the URL (or the sidebar) chose."""
    page = _declare()
    _through_app.on = True
    try:
        page.run()
    finally:
        _through_app.on = False


def ensure_app() -> None:
    """First call of every page: a page that Streamlit runs without ``app.py`` declares the app itself."""
    if getattr(_through_app, "on", False):
        return
    ctx = get_script_run_ctx()
    if ctx is None:  # not in a script run (bare import)
        return
    # st.navigation makes app.py the active script of the run; the page then goes on under its own page hash,
    # as when app.py runs it, so that its widgets keep their ids (and a click in this run's view counts).
    with ctx.run_with_active_hash(ctx.page_script_hash):
        _declare()
