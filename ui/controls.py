"""Sidebar controls shared by the experiment pages: inputs, presets, Stop and the progress footer.

Numeric fields (:func:`number`) state their range in their help and take any number typed: a value outside
the range (or an empty field) is shown as a message under the field and keeps the run from starting
(:func:`problems`), instead of being silently refused by the browser. A preset, or the Overview's demo, shows
its settings in the sidebar: :func:`show_settings` queues the config's values for the page's widgets, which
:func:`apply_shown` writes into their keys before the page draws them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from engine import settings
from engine.jobs import Job
from ui.runs import guard, progress_text, registry, run_label, submit_runs

KEEP = {"persist_state": "session"}  # widget values survive page switches
BUNDLED_CHOICE = "bundled (all-MiniLM-L6-v2)"

_PROBLEMS = "_fields.problems"  # session key: {page prefix: [problem line, ...]} of the current run
_SHOWN = "_fields.shown"  # session key: {page prefix: {widget key: value}} to write before the widgets

#: config field -> (widget key suffix, value of the widget) per experiment: what a preset shows in the sidebar
WIDGETS: dict[str, dict[str, tuple[str, Callable[[Any], Any]]]] = {
    "probe": {
        "data": ("data", str),
        "label_col": ("label", lambda v: "sentiment" if v == "sentiment" else "topic"),
        "limit": ("limit", lambda v: int(v or 0)),
        "steps": ("steps", int),
        "lr": ("lr", float),
        "metric_every": ("every", int),
        "sample_size": ("sample", lambda v: int(v or 0)),
        "fixed_sample": ("fixed", bool),
        "geometry_every": ("geomevery", int),
        "objective": ("objective", str),
        "margin": ("margin", float),
        "snapshot_every": ("snap", int),
        "snapshot_limit": ("snaplimit", int),
        "seed": ("seed", int),
        "device": ("device", str),
    },
    "simcse": {
        "mode": ("sup", lambda v: v == "sup"),
        "steps": ("steps", int),
        "lr": ("lr", float),
        "batch_size": ("batch", int),
        "eval_every": ("every", int),
        "eval_limit": ("evlimit", lambda v: int(v or 0)),
        "probe": ("probe", bool),
        "snapshot_every": ("snap", int),
        "dropout": ("dropout", float),
        "same_mask": ("same", bool),
        "augment": ("augment", str),
        "augment_rate": ("rate", float),
        "hard_negative_weight": ("alpha", float),
        "seed": ("seed", int),
        "device": ("device", str),
    },
}


# ------------------------------------------------------------------------------------------ fields


def _fmt(value: float) -> str:
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:g}"


def begin_fields(prefix: str) -> None:
    """Forget the field problems of the last run of the page ``prefix`` (its fields are drawn anew)."""
    st.session_state.setdefault(_PROBLEMS, {})[prefix] = []


def problems(prefix: str) -> list[str]:
    """The field problems of the page ``prefix`` in this run (values outside their range, empty fields)."""
    return list(st.session_state.get(_PROBLEMS, {}).get(prefix, []))


def add_problem(prefix: str, text: str) -> None:
    st.session_state.setdefault(_PROBLEMS, {}).setdefault(prefix, []).append(text)


def number(
    label: str,
    key: str,
    low: float,
    high: float,
    default: float,
    *,
    step: float | None = None,
    fmt: str | None = None,
    help: str = "",
    box: Any = None,
) -> Any:
    """A number field that accepts what is typed and says when it is out of range: its help ends with the
    range; a value outside it (or an empty field) shows a message under the field, is recorded as a problem
    of the page (no Start while there is one) and is replaced by ``default`` in the returned config value."""
    box = box if box is not None else st.sidebar
    text = f"{help} Range: {_fmt(low)} to {_fmt(high)}.".strip()
    value = box.number_input(label, value=default, step=step, format=fmt, key=key, help=text, **KEEP)
    problem = None
    if value is None:
        problem = f"“{label}” is empty: enter a number from {_fmt(low)} to {_fmt(high)}."
    elif not low <= value <= high:
        problem = (
            f"“{label}” must be from {_fmt(low)} to {_fmt(high)}: {value:g} is outside that range, so the "
            f"run cannot start."
        )
    if problem is None:
        return value
    box.error(problem, icon="⚠️")
    add_problem(key.split(".", 1)[0], problem)
    return default


# ----------------------------------------------------------------------------- presets in the sidebar


def show_settings(kind: str, config: dict[str, Any]) -> None:
    """Queue a config's values for the sidebar of experiment ``kind`` (its page writes them into its widgets
    before drawing them, :func:`apply_shown`): after a preset or the demo, the sidebar shows what ran."""
    values = {}
    for field, (suffix, convert) in WIDGETS.get(kind, {}).items():
        if field in config:
            with contextlib.suppress(TypeError, ValueError):
                values[f"{kind}.{suffix}"] = convert(config[field])
    st.session_state.setdefault(_SHOWN, {})[kind] = values


def apply_shown(kind: str) -> None:
    """Write the values queued by :func:`show_settings` into the widget keys of ``kind`` (before its widgets
    are drawn in this run)."""
    values = st.session_state.get(_SHOWN, {}).pop(kind, None)
    for key, value in (values or {}).items():
        st.session_state[key] = value


# ------------------------------------------------------------------------------------------ inputs


def device_and_seed(prefix: str) -> dict[str, Any]:
    cols = st.sidebar.columns(2)
    seed = number(
        "Seed",
        f"{prefix}.seed",
        0,
        2**31 - 1,
        0,
        step=1,
        box=cols[0],
        help="Fixes the random choices (subsets, initialisation, dropout masks).",
    )
    device = cols[1].selectbox(
        "Device",
        ["auto", "cpu", "cuda"],
        key=f"{prefix}.device",
        **KEEP,
        help="auto: the GPU when there is one, else the CPU.",
    )
    return {"seed": int(seed), "device": device}


def encoder_choice(prefix: str) -> str | None:
    """Encoder picker: the bundled model, encoders saved in cache/encoders, or a hub id / folder."""
    from engine.encoders import list_encoders

    names = []
    with contextlib.suppress(Exception):
        names = [info.name for info in list_encoders() if not info.bundled]
    options = [BUNDLED_CHOICE, *names, "other: hub id or folder"]
    choice = st.sidebar.selectbox(
        "Encoder",
        options,
        key=f"{prefix}.encoder",
        **KEEP,
        help="The bundled model works offline. Saved encoders come from SimCSE runs.",
    )
    if choice == options[0]:
        return None
    if choice == options[-1]:
        text = st.sidebar.text_input(
            "Hub id or local folder",
            key=f"{prefix}.encoder_text",
            **KEEP,
            placeholder="e.g. bert-base-uncased or /path/to/model",
        )
        return text.strip() or None
    return choice


def encoder_dims(encoder: str | None) -> int | None:
    """The embedding size of the bundled or a saved encoder (from its config.json), else None (unknown)."""
    from engine.encoders import list_encoders

    with contextlib.suppress(Exception):
        for info in list_encoders():
            if (encoder is None and info.bundled) or (encoder is not None and info.name == encoder):
                return int(json.loads((info.path / "config.json").read_text(encoding="utf-8"))["hidden_size"])
    return None


def data_dir_input(prefix: str) -> str | None:
    from engine.presets import default_data_dir

    default = default_data_dir() or ""
    value = st.sidebar.text_input(
        "Data folder (real data sets)",
        value=default,
        key=f"{prefix}.data_dir",
        **KEEP,
        help="Folder holding rt-polarity/, snli/, stsb/, wiki/ (e.g. ../shared/data). "
        "The Data & encoders page, tab “Get the data”, shows how to get them.",
    )
    return value.strip() or None


def sources(prefix: str) -> dict[str, Any]:
    """The data folder and the encoder of a run (in this order in the sidebar)."""
    return {"data_dir": data_dir_input(prefix), "encoder": encoder_choice(prefix)}


def snapshot_every(prefix: str) -> int:
    """The UMAP frame interval of a run (0: no snapshots, no projection)."""
    return int(
        number(
            "UMAP frame every k steps (0 = off)",
            f"{prefix}.snap",
            0,
            100_000,
            10,
            step=1,
            help="Keeps the embeddings every k steps for the projection and its film.",
        )
    )


def preset_buttons(kind: str, current: dict[str, Any]) -> None:
    """One button per preset of this kind: queues its runs on top of the ``current`` settings, and the
    sidebar then shows the preset's settings (those of its run, or those its runs share)."""
    from engine.presets import for_kind

    found = for_kind(kind, current)
    if not found:
        return
    st.sidebar.markdown("**Presets**")
    for name, preset in found.items():
        if st.sidebar.button(name, key=f"{kind}.preset.{name}", help=preset.description, width="stretch"):
            with guard(f"{name}: "):
                runs = preset.configs(current)
                submit_runs(kind, runs)
                show_settings(kind, runs[0][1] if len(runs) == 1 else {**current, **preset.base})
                st.rerun()


def sidebar_controls_footer(kind: str, shown_live: list[Job] | None = None) -> None:
    """Stop for queued and running jobs of this kind, and a live progress bar in the sidebar, unless the
    running ones are among ``shown_live`` (runs whose progress the page's live canvas already shows, fed
    without a page rerun: a sidebar fragment would rerun every second, for nothing)."""
    reg = registry()
    active = [job for job in reg.jobs() if job.kind == kind and job.active]
    if active and st.sidebar.button(
        "■ Stop", key=f"{kind}.stop", width="stretch", help="Stop the running run and cancel queued ones"
    ):
        for job in active:
            job.stop()
        st.rerun()
    with st.sidebar:
        progress_fragment(kind, shown_live or [])


def progress_fragment(kind: str, shown_live: list[Job]) -> None:
    reg = registry()
    going = [job for job in reg.jobs() if job.kind == kind and job.active]
    if going and {job.id for job in going} <= {job.id for job in shown_live}:
        st.caption(f"{', '.join(run_label(job) for job in going)}: progress beside the charts.")
        return
    live = any(job.active for job in reg.jobs())

    @st.fragment(run_every=settings.get("live_seconds") if live else None)
    def progress() -> None:
        jobs = [
            job for job in registry().jobs() if job.kind == kind and (job.active or job is registry().current)
        ]
        for job in jobs:
            st.progress(*progress_text(job))
        if not jobs:
            st.caption("No run going. Pick settings or a preset and press Start.")

    progress()
