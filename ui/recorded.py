"""A preset's recorded runs, played for a class (issue 58, item 1): where a preset of the page declares
``recorded`` (:class:`engine.core.declaration.Recorded`), the sidebar offers "Play the recorded runs (N seeds,
full length)"; the page then draws those shipped runs (:mod:`engine.groups.recorded`), one group per run of
the preset with its ± sd band, on the page's live view (:mod:`ui.live_view`), played by the page's one player
(:mod:`ui.player`) at the lecture pace with its step counter: offline, no training, nothing written but the
live feed's own files. A caption says that they are recorded, when, with which command, seeds and start.

:func:`shown` is the recorded group on the page (None when none is): the page's text reads its figures
from it while it is shown (docs/architecture.md, "The runs drawn on a page").
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from typing import Any

import streamlit as st

from engine.charts import ChartStyle
from engine.charts.recorded import recorded_description
from engine.core.declaration import Experiment, Preset
from engine.core.errors import DataError
from engine.core.pace import RECORDED_LEAD_SECONDS, Pace
from engine.groups.recorded import RecordedGroup, read_recorded
from ui import feed, live_view, player, projector
from ui.live import session_token

_groups: dict[str, RecordedGroup] = {}  # read once per server: shipped files do not change
_reading: set[str] = set()  # presets whose runs a thread reads (:func:`prefetch`)
_lock = threading.Lock()


def offered(experiment: Experiment) -> dict[str, Preset]:
    """The presets of ``experiment``'s page that have recorded runs, by name."""
    from engine.lessons.presets import for_kind

    return {name: preset for name, preset in for_kind(experiment.kind).items() if preset.recorded is not None}


def label(preset: Preset) -> str:
    """The control's words: ``Play the recorded runs (3 seeds, full length)``."""
    seeds = preset.recorded.seeds if preset.recorded is not None else 0
    return f"Play the recorded runs ({seeds} seed{'s' if seeds != 1 else ''}, full length)"


def group_of(preset: Preset) -> RecordedGroup:
    """The recorded group of ``preset`` (read once; DataError when it cannot be)."""
    with _lock:
        found = _groups.get(preset.name)
    if found is None:
        found = read_recorded(preset)
        with _lock:
            _groups[preset.name] = found
    return found


def prefetch(preset: Preset) -> None:
    """Read ``preset``'s recorded runs on a thread of their own, once per server, while the page is read:
    the first click then finds them read (the first frame comes sooner)."""
    with _lock:
        if preset.name in _groups or preset.name in _reading:
            return
        _reading.add(preset.name)

    def read() -> None:
        with contextlib.suppress(DataError):  # said at the click, where it is shown
            group_of(preset)

    threading.Thread(target=read, name="embedlab-recorded-read", daemon=True).start()


def recorded_buttons(experiment: Experiment) -> None:
    """The sidebar's control per preset with recorded runs: play them (from step 0), or hide them."""
    kind, slot = experiment.kind, f"{experiment.kind}.recorded"
    for name, preset in offered(experiment).items():
        prefetch(preset)
        help_text = f"“{name}” as recorded and shipped with the lab: no training, nothing written."
        if st.sidebar.button(label(preset), key=f"{kind}.recorded.{name}", help=help_text, width="stretch"):
            st.session_state[slot] = {"preset": name, "play": secrets.token_hex(6)}
    if st.session_state.get(slot) and st.sidebar.button(
        "Hide the recorded runs", key=f"{kind}.recorded.hide"
    ):
        st.session_state.pop(slot, None)


def chosen_preset(experiment: Experiment) -> tuple[Preset, str] | None:
    """The preset whose recorded runs the page shows, and its play's token (None: none is shown)."""
    chosen = st.session_state.get(f"{experiment.kind}.recorded")
    preset = offered(experiment).get(chosen["preset"]) if chosen else None
    return None if preset is None else (preset, chosen["play"])


def shown(experiment: Experiment) -> RecordedGroup | None:
    """The recorded group on the page now (None: none is shown): the runs drawn, for the page's text."""
    chosen = chosen_preset(experiment)
    try:
        return group_of(chosen[0]) if chosen is not None else None
    except DataError:
        return None


def payload(
    group: RecordedGroup, play: str, style: ChartStyle | None = None, first: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The live feed's payload of the recorded group at its playhead's step now (still live until played
    through), in ``style`` with the charts named in ``first`` leading (projector mode's, :func:`looks`)."""
    pace = Pace(group.steps, lead=RECORDED_LEAD_SECONDS, cue_wait=0.0)  # its first frame: the click's run
    head = player.head(("recorded", play), pace)
    step = head.at(0, group.steps)
    found = description_at(group, step, style, first)
    return {"description": found, "signature": "recorded", "live": not head.done(group.steps), "taken": None}


def description_at(
    group: RecordedGroup, step: int | None, style: ChartStyle | None = None, first: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The plain, versioned chart description of ``group`` at ``step`` (:func:`recorded_description`)."""
    from engine.charts import description

    drawn = recorded_description(group, step, style=style, first=first)
    return description.versioned(description.plain(drawn))


def looks(experiment: Experiment) -> tuple[ChartStyle | None, tuple[str, ...]]:
    """The recorded charts' style and leading charts on this page run: in projector mode the live charts'
    style (:func:`ui.projector.style`) and the lesson's charts first (its section's ``projector``), else
    none. Read here, in the page's run: the feed's thread has no session."""
    style = projector.style()
    section = experiment.section
    return style, (tuple(section.projector) if style is not None and section is not None else ())


def recorded_panel(experiment: Experiment) -> RecordedGroup | None:
    """The recorded group, if one is chosen: its caption, then its charts played by the live view (in
    projector mode the caption's headline above the charts, the whole caption under them)."""
    chosen = chosen_preset(experiment)
    if chosen is None:
        return None
    preset, play = chosen
    try:
        group = group_of(preset)
    except DataError as err:
        st.warning(f"The recorded runs cannot be shown: {err}")
        return None
    style, first = looks(experiment)
    st.info(group.caption() if style is None else group.headline(), icon=":material/history:")
    now = payload(group, play, style, first)
    session = f"{session_token()}.recorded"  # its own feed, beside the live runs' one
    fed = feed.follow(session, lambda: payload(group, play, style, first), now) if now["live"] else None
    live_view.show(now["description"], f"{experiment.kind}.recorded.live", fed=fed)
    if style is not None:
        st.info(group.caption(), icon=":material/history:")
    return group
