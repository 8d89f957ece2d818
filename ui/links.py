"""A link that opens an experiment page with a lesson's settings: ``/simcse?preset=SimCSE%20Figure%202`` and
``?KNOB=VALUE`` by the knob's declared name (``?steps=300&same_mask=true``), read from ``st.query_params``.

The link fills the sidebar (a preset's settings, then each knob laid over them) once per session and link,
before the page draws its widgets (:func:`open_link`); a bad value or an unknown name is ignored and named
in a note (:func:`link_notes`). Nothing starts: ▶ Start (or the preset's button) stays the reader's click.
"Copy link to these settings" (:func:`copy_link`) gives the URL of what the sidebar holds now: every linked
knob whose value differs from its default. The values are read and written by
:mod:`engine.core.knob_text`, from the knobs' declarations. Each function takes the registered experiment
(:class:`~engine.core.declaration.Experiment`) of the page; its kind keys the session's notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import streamlit as st

from engine.core import knob_text
from engine.core.declaration import Experiment
from engine.core.knobs import Knob, knobs
from ui import fields

PRESET = "preset"
RUNS = "runs"  # the picked runs (ui.runs), not a setting
OWNER = "owner"  # the token of the runs a browser started (ui.runs.owner_token), not a setting
#: query parameters that are no setting: the preset, the picked runs, Streamlit's own
RESERVED = (PRESET, RUNS, OWNER, "embed", "embed_options")
#: page-drawn knobs a link may set beside the composed ones (ui.fields.composed): field -> widget value
PAGE_FIELDS = {"data_dir": lambda value: value or ""}
_APPLIED = "_links.applied"  # session key: {kind: the link's settings last applied}
_NOTES = "_links.notes"  # session key: {kind: (what the link set, what it ignored)}


def linked_knobs(experiment: Experiment) -> list[Knob]:
    """The knobs of ``experiment`` that a link may set: those drawn from their declaration and the page's
    own data choices that a preset may show (:func:`ui.fields.composed`, the data folder)."""
    composed = {*fields.composed(experiment), *PAGE_FIELDS}
    return [
        item
        for item in knobs(experiment.config_class)
        if item.widget not in (None, "page") or item.name in composed
    ]


def settings_params(params: Any) -> dict[str, str]:
    """The pairs of the query parameters that are settings (the last value of a name given twice)."""
    return {name: params[name] for name in params if name not in RESERVED}


def link_config(
    experiment: Experiment, params: dict[str, str]
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The sidebar values a link to the page of ``experiment`` names (its preset's, then its knobs'), what it
    set (lines) and what it ignored (lines: an unknown preset or name, a bad value)."""
    from engine.lessons.presets import for_kind

    config: dict[str, Any] = {}
    done: list[str] = []
    ignored: list[str] = []
    name = params.get(PRESET)
    if name is not None:
        preset = for_kind(experiment.kind).get(name)
        if preset is None:
            ignored.append(f"preset {name[:60]!r} is not a preset of this page")
        else:
            runs = preset.configs({})
            config.update(runs[0][1] if len(runs) == 1 else preset.base)
            more = f" (its {len(preset.runs)} runs: its button under Presets queues them)"
            done.append(f"preset “{preset.name}”" + (more if len(preset.runs) > 1 else ""))
    items = {item.name: item for item in linked_knobs(experiment)}
    values, bad = knob_text.read(items.values(), settings_params(params))
    config.update(values)
    done += [f"{name} = {knob_text.text(items[name], value)}" for name, value in values.items()]
    ignored += bad
    return config, done, ignored


def open_link(experiment: Experiment) -> None:
    """Fill the sidebar of ``experiment`` from the page's URL, once per session and link (a reload or a new
    tab is a new session: the link opens its settings again); called before the page draws its widgets."""
    params = {name: st.query_params[name] for name in st.query_params}
    asked = {name: value for name, value in params.items() if name == PRESET or name not in RESERVED}
    applied = st.session_state.setdefault(_APPLIED, {})
    kind = experiment.kind
    if not asked:
        applied.pop(kind, None)
        st.session_state.setdefault(_NOTES, {}).pop(kind, None)
        return
    if applied.get(kind) == asked:
        return
    applied[kind] = asked
    config, done, ignored = link_config(experiment, asked)
    values = fields.shown_values(experiment, config)
    for name, convert in PAGE_FIELDS.items():
        if name in config:
            values[fields.key(experiment, name)] = convert(config[name])
    for widget_key, value in values.items():
        st.session_state[widget_key] = value
    st.session_state.setdefault(_NOTES, {})[kind] = (done, ignored)


def link_notes(experiment: Experiment) -> None:
    """What the link to the page of ``experiment`` set, and each part of it that was ignored, at the top of
    the sidebar."""
    done, ignored = st.session_state.get(_NOTES, {}).get(experiment.kind, ([], []))
    if done:
        st.sidebar.info(
            "Opened from a link: " + "; ".join(done) + ". Nothing runs until you press Start.",
            icon=":material/link:",
        )
    if ignored:
        st.sidebar.warning("Ignored from the link: " + "; ".join(ignored) + ".", icon=":material/link_off:")


def page_url(experiment: Experiment) -> str:
    """The URL of the page of ``experiment`` in the reader's browser (its path alone where the browser's is
    not known, as in a test)."""
    shown = st.context.url
    if shown:
        return shown.split("?", 1)[0]
    return "/" + Path(experiment.section.page).stem


def settings_link(experiment: Experiment, config: dict[str, Any]) -> str:
    """The URL that opens the page of ``experiment`` with ``config``'s settings (the knobs off their
    default)."""
    pairs = knob_text.changed(linked_knobs(experiment), config)
    return page_url(experiment) + ("?" + urlencode(pairs, quote_via=quote) if pairs else "")


def copy_link(experiment: Experiment, config: dict[str, Any]) -> None:
    """“Copy link to these settings” in the sidebar: the URL of what is set now, with a copy button."""
    with st.sidebar.expander("Copy link to these settings", icon=":material/link:"):
        st.code(settings_link(experiment, config), language=None, wrap_lines=True)
        st.caption("Opens this page with these settings; the reader still presses Start.")
