"""Projector mode: one switch (in the sidebar of every page, remembered in the session) for a lecture room.

On: the sidebar (every setting) and Streamlit's header and toolbar are hidden by injected CSS, the text is
larger, and the experiment pages show the film beside one chosen curve at full width
(:func:`ui.live.live_panel`), drawn with :data:`engine.charts.PROJECTOR` (chart text of at least 18 px,
thicker lines; the live view draws the figures as they are). A button at the top of every page
turns it off again, since the switch itself is hidden with the sidebar.
"""

from __future__ import annotations

import streamlit as st

from engine import charts

KEY = "projector"
LABEL = "Projector mode"
HELP = (
    "For a lecture room: hides the settings, the sidebar and the toolbar, enlarges text and lines, and shows "
    "the film beside one chosen curve. “Leave projector mode” at the top of the page turns it off."
)
#: hides the sidebar (with its collapse control), Streamlit's header and toolbar; larger text, full width
CSS = """
<style>
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
  [data-testid="stSidebarCollapseButton"],
  header[data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stDecoration"],
  [data-testid="stStatusWidget"] { display: none !important; }
  html { font-size: 22px; }
  .st-key-projector-leave { position: fixed; top: 0.5rem; right: 1.5rem; z-index: 999990;
    width: auto !important; }
  .st-key-run-picker { max-width: calc(100% - 15rem); }  /* beside the Leave button, not under it */
  .st-key-run-picker [data-tag] { font-size: 16px; max-width: 13.5rem; padding-top: 0; padding-bottom: 0; }
  .st-key-run-picker [data-tag] > span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .embedlab-progress-text { font-size: 18px !important; }
  [data-testid="stMainBlockContainer"], .block-container { max-width: 100% !important;
    padding-top: 1rem !important; padding-left: 2rem !important; padding-right: 2rem !important; }
</style>
"""


def on() -> bool:
    """Whether this session is in projector mode."""
    return bool(st.session_state.get(KEY, False))


def style() -> charts.ChartStyle | None:
    """The charts' style in this session: :data:`engine.charts.PROJECTOR` in projector mode, else None."""
    return charts.PROJECTOR if on() else None


def _leave() -> None:
    st.session_state[KEY] = False


def switch() -> None:
    """The switch (sidebar) and, while it is on, the CSS and the button that turns it off (top of the page).
    Called once per run of every page, before the page draws anything."""
    st.sidebar.toggle(LABEL, key=KEY, help=HELP, persist_state="session")
    if on():
        st.html(CSS)
        st.button(
            "Leave projector mode",
            key="projector.leave",
            icon=":material/close:",
            on_click=_leave,
            help="Shows the settings and the sidebar again.",
        )
