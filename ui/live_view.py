"""The live view: one Streamlit component (custom components v2) that draws a chart description
(:mod:`engine.charts.description`) with the one renderer, Plotly.js (``engine/web/charts.js``).

Its JavaScript and CSS are files (``engine/web/charts.js`` + ``ui/web/live.js``, ``engine/web/charts.css``),
read once and registered as the component's code. Plotly.js itself is the installed ``plotly`` package's
``plotly.min.js``: it is too large to travel with every update of the component, so the app serves it from
its static folder (``[server] enableStaticServing``, ``static/`` beside ``app.py``, at ``app/static/...``),
where :func:`serve_plotly` links it (or copies it, across file systems) once per server; the file is not in
the repository. While a run trains, the component fetches its next descriptions from the live feed
(:mod:`ui.feed`, a file of the same static folder) and redraws with ``Plotly.react``. Once it has drawn the
first rows of the runs a description names ``unseen`` (paced runs whose playhead waits for that), it says so
through its ``drawn`` trigger, and the page's ``on_drawn`` gets their ids (:func:`ui.player.cue`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import streamlit as st

from engine.charts import description
from ui import static_files

ROOT = Path(__file__).resolve().parents[1]
ENGINE_WEB = ROOT / "engine" / "web"
UI_WEB = Path(__file__).resolve().with_name("web")
STATIC = static_files.STATIC  # served at app/static/ (enableStaticServing, .streamlit/config.toml)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


_component = st.components.v2.component(
    "embedlab_live_view",
    js=_read(ENGINE_WEB / "charts.js") + "\n" + _read(UI_WEB / "live.js"),
    css=_read(ENGINE_WEB / "charts.css"),
    isolate_styles=False,  # Plotly.js styles its hover boxes and mode bar from the page's <head>
)


def plotly_source() -> Path:
    """The installed plotly package's Plotly.js (the same file the replay inlines)."""
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def plotly_name() -> str:
    """The served file's name, with the plotly package's version (a new version is a new URL)."""
    import plotly

    return f"plotly-{plotly.__version__}.min.js"


def serve_plotly(static: Path = STATIC) -> str:
    """Put Plotly.js into the static folder (:func:`ui.static_files.serve`) and return its URL."""
    return static_files.serve(plotly_source(), plotly_name(), static)


def _stale() -> None:
    """The component found the page's signature changed: its trigger reruns the live fragment (which then
    reruns the page); nothing more to do here."""


def show(
    found: description.Description,
    key: str,
    *,
    single: bool = False,
    fed: dict[str, Any] | None = None,
    taken: list[Any] | None = None,
    unseen: list[str] | None = None,
    on_drawn: Callable[[list[str]], None] | None = None,
) -> None:
    """Draw ``found`` (a chart description) as one element; half-width panels two per row, or one per row
    when ``single``. ``fed`` (:func:`ui.feed.follow`): where the component fetches its next descriptions;
    ``taken`` (:func:`ui.live_state.taken`): when the look it describes was taken (an older one than the
    component has drawn is not drawn). ``unseen``: the runs whose first rows ``found`` shows for the first
    time; once the browser has drawn them (or those a fetched payload names), ``on_drawn`` gets their ids."""
    data: dict[str, Any] = {
        "description": description.versioned(description.plain(found)),
        "plotly": serve_plotly(),
        "single": single,
        "feed": fed,
        "taken": taken,
        "unseen": list(unseen or []),
    }
    drawn = _stale if on_drawn is None else partial(_drawn, key, on_drawn)
    _component(data=data, key=key, height="content", on_stale_change=_stale, on_drawn_change=drawn)


def _drawn(key: str, on_drawn: Callable[[list[str]], None]) -> None:
    """The component's ``drawn`` trigger: the browser drew the first rows of the runs it names; hand their
    ids (strings only: the value comes from the browser) to ``on_drawn``."""
    state = st.session_state.get(key)
    ids = state.get("drawn") if isinstance(state, Mapping) else getattr(state, "drawn", None)
    if isinstance(ids, list):
        on_drawn([run for run in ids if isinstance(run, str)])
