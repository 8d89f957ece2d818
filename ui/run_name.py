"""The name of the next run: a text field in an experiment's sidebar, filled with the name made from the
page's settings (:func:`engine.runlog.naming.generated_name`) until the user types one, and the name ▶ Start
gives the run (:func:`ui.runs.submit_runs` reads it)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from engine.core.declaration import Experiment
from engine.runlog import naming
from ui import fields


def key(experiment: Experiment) -> str:
    """The session key of the name field of ``experiment``'s page (``<kind>.run_name``)."""
    return fields.key(experiment, "run_name")


def _auto_key(experiment: Experiment) -> str:
    return f"{key(experiment)}.generated"


def _made(experiment: Experiment) -> set[str]:
    """Every name this session's page of ``experiment`` generated: a click right after a setting changed may
    send back the field's previous generated name (the browser had not shown the new one yet), which is no
    name of the user's either."""
    return st.session_state.setdefault(f"{key(experiment)}.made", set())


def name_field(experiment: Experiment, config: dict[str, Any], box: Any = None) -> None:
    """The field: it follows the settings (the generated name) until the user types a name of their own; an
    emptied field takes the generated name again."""
    box = box or st.sidebar
    kind = experiment.kind
    try:
        generated = naming.generated_name(kind, config)
    except Exception:  # noqa: BLE001 - settings a page could not check yet: the kind, until they can be
        generated = kind
    field, auto = key(experiment), _auto_key(experiment)
    shown = st.session_state.get(field)
    if not str(shown or "").strip() or shown == st.session_state.get(auto) or shown in _made(experiment):
        st.session_state[field] = generated
    st.session_state[auto] = generated
    _made(experiment).add(generated)
    box.text_input(
        "Run name",
        key=field,
        max_chars=naming.MAX_NAME,
        help="How pickers, legends, tables, downloads and the lesson call this run. Made from what differs "
        "(data, changed settings, steps) until you type your own; rename it later on Compare.",
    )


def typed_name(experiment: Experiment) -> str | None:
    """The name the user typed in the field of ``experiment``'s page, cleaned
    (:func:`engine.runlog.naming.clean_name`: a ConfigError line for one with nothing visible); None while the
    field holds a generated name, the newest or an earlier one (then the run is named from the settings it is
    started with)."""
    value = st.session_state.get(key(experiment))
    if value is None or value == st.session_state.get(_auto_key(experiment)) or value in _made(experiment):
        return None
    return naming.clean_name(value)
