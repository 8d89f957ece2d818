"""A link that opens an experiment page with a lesson's settings: ``/simcse?preset=SimCSE%20Figure%202`` and
``?KNOB=VALUE`` by the knob's declared name (``?steps=300&same_mask=true``), read from ``st.query_params``.

The link fills the sidebar (a preset's settings, then each knob laid over them) once per session and link,
before the page draws its widgets (:func:`open_link`); a bad value or an unknown name is ignored and named
in a note (:func:`link_notes`). Nothing starts: ▶ Start (or the preset's button) stays the reader's click.
"Copy link to these settings" (:func:`copy_link`) gives the URL of what the sidebar holds now: every linked
knob whose value differs from its default, the training data and the data folder included, and no path of
this machine (:func:`ui.link_values.shareable`); beside it, a link that reopens the runs shown
(``?runs=``). The values are read and written by :mod:`engine.core.knob_text`, from the knobs'
declarations, and a value the page cannot show is refused when the link is read
(:func:`ui.link_values.page_value`). Every note quoting a URL value is escaped (:func:`ui.text.plain`).
Each function takes the registered experiment (:class:`~engine.core.declaration.Experiment`) of the page;
its kind keys the session's notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import streamlit as st

from engine.core import knob_text
from engine.core.declaration import Experiment
from engine.core.errors import ConfigError
from engine.core.knobs import Knob, knobs
from ui import fields, link_values
from ui.text import plain

PRESET = "preset"
RUNS = "runs"  # the picked runs (ui.runs), not a setting
OWNER = "owner"  # the token of the runs a browser started (ui.runs.owner_token), not a setting
#: query parameters that are no setting: the preset, the picked runs, Streamlit's own
RESERVED = (PRESET, RUNS, OWNER, "embed", "embed_options")
#: page-drawn knobs a link may set beside the composed ones (ui.fields.composed): field -> {widget key name:
#: widget value} (the training data's choice is keyed by the set's kind: train0 plain sentences, train1 pairs)
PAGE_FIELDS: dict[str, Any] = {
    "data_dir": lambda value: {"data_dir": value or ""},
    "train": lambda value: {} if value is None else {f"train{int(value == 'demo-nli')}": value},
}
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
    ignored += bad
    root = link_values.data_root()
    for name, value in values.items():
        try:
            config[name] = link_values.page_value(items[name], value, root)
        except ConfigError as err:  # refused now, with its note: never reported as set, then dropped
            ignored.append(str(err))
            continue
        done.append(f"{name} = {knob_text.text(items[name], value)}")
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
            values |= {fields.key(experiment, k): v for k, v in convert(config[name]).items()}
    for widget_key, value in values.items():
        st.session_state[widget_key] = value
    st.session_state.setdefault(_NOTES, {})[kind] = (done, ignored)


def link_notes(experiment: Experiment) -> None:
    """What the link to the page of ``experiment`` set, and each part of it that was ignored, at the top of
    the sidebar."""
    done, ignored = st.session_state.get(_NOTES, {}).get(experiment.kind, ([], []))
    for line, draw, icon in (
        (opened_note(done), st.sidebar.info, "link"),
        (ignored_note(ignored), st.sidebar.warning, "link_off"),
    ):
        if line:
            draw(line, icon=f":material/{icon}:")


def opened_note(done: list[str]) -> str:
    """The note of what a link set, its values escaped (user text: never Markdown); "" when it set nothing."""
    return (
        plain("Opened from a link: " + "; ".join(done) + ". Nothing runs until you press Start.")
        if done
        else ""
    )


def ignored_note(ignored: list[str]) -> str:
    """The note of what a link named that the page refused, its values escaped; "" when nothing was."""
    return plain("Ignored from the link: " + "; ".join(ignored) + ".") if ignored else ""


def page_url(experiment: Experiment) -> str:
    """The URL of the page of ``experiment`` in the reader's browser (its path alone where the browser's is
    not known, as in a test)."""
    shown = st.context.url
    if shown:
        return shown.split("?", 1)[0]
    return "/" + Path(experiment.section.page).stem


def settings_pairs(experiment: Experiment, config: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The ``name=text`` pairs of ``config``'s settings off their default, without this machine's paths
    (:func:`ui.link_values.shareable`), and the names of those left out for being one."""
    pairs = knob_text.changed(linked_knobs(experiment), config)
    return link_values.shareable(pairs, link_values.data_root())


def settings_link(experiment: Experiment, config: dict[str, Any]) -> str:
    """The URL that opens the page of ``experiment`` with ``config``'s settings (the knobs off their
    default; no path of this machine)."""
    pairs, _ = settings_pairs(experiment, config)
    return page_url(experiment) + ("?" + urlencode(pairs, quote_via=quote) if pairs else "")


def runs_link(experiment: Experiment, runs: list[str]) -> str:
    """The URL that opens the page of ``experiment`` on ``runs`` (run ids): ``?runs=ID,ID``."""
    return page_url(experiment) + "?" + urlencode({RUNS: ",".join(runs)}, quote_via=quote)


def copy_link(experiment: Experiment, config: dict[str, Any]) -> None:
    """“Copy link to these settings” in the sidebar: the URL of what is set now, with a copy button."""
    with st.sidebar.expander("Copy link to these settings", icon=":material/link:"):
        st.code(settings_link(experiment, config), language=None, wrap_lines=True)
        _, left_out = settings_pairs(experiment, config)
        more = f" Not in it (a folder of this machine): {', '.join(left_out)}." if left_out else ""
        st.caption("Opens this page with these settings; the reader still presses Start." + more)


def copy_runs_link(experiment: Experiment, runs: list[str]) -> None:
    """“Copy link to the runs shown” in the sidebar (drawn once the run picker has picked ``runs``, run ids):
    the URL that reopens them (``?runs=``, each name checked when read: :func:`ui.link_values.run_names`)."""
    if not runs:
        return
    with st.sidebar.expander("Copy link to the runs shown", icon=":material/link:"):
        st.code(runs_link(experiment, runs), language=None, wrap_lines=True)
        st.caption("Reopens these runs on this page (on this server).")
