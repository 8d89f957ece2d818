"""Sidebar controls shared by the experiment pages: the data folder, the encoder, device and seed, presets,
Stop and the progress footer. The knobs' own widgets are drawn from their declarations by :mod:`ui.fields`.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import streamlit as st

from engine import settings
from engine.jobs import Job
from ui import fields
from ui.fields import KEEP, show_settings
from ui.runs import guard, progress_text, registry, run_label, started_here, submit_runs

BUNDLED_CHOICE = "bundled (all-MiniLM-L6-v2)"


# ------------------------------------------------------------------------------------------ inputs


def device_and_seed(kind: str) -> dict[str, Any]:
    """The seed and the device of a run, side by side."""
    cols = st.sidebar.columns(2)
    return {
        "seed": fields.draw(kind, "seed", box=cols[0]),
        "device": fields.draw(kind, "device", box=cols[1]),
    }


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


def preset_buttons(kind: str, current: dict[str, Any]) -> None:
    """One button per preset of this kind: queues its runs on top of the ``current`` settings, and the
    sidebar then shows the preset's settings (those of its run, or those its runs share)."""
    from engine.presets import for_kind, queue

    found = for_kind(kind, current)
    if not found:
        return
    st.sidebar.markdown("**Presets**")
    for name, preset in found.items():
        if st.sidebar.button(name, key=f"{kind}.preset.{name}", help=preset.description, width="stretch"):
            with guard(f"{name}: "):
                queued = queue(preset, current)
                for run_kind in dict.fromkeys(run.kind for run in queued):  # a run of another experiment too
                    submit_runs(run_kind, [(run.name, run.fields) for run in queued if run.kind == run_kind])
                runs = preset.configs(current)
                show_settings(kind, runs[0][1] if len(runs) == 1 else {**current, **preset.base})
                st.rerun()


def sidebar_controls_footer(kind: str, shown_live: list[Job] | None = None) -> None:
    """■ Stop for the queued and running runs of this kind that this browser session started, a separate
    confirmed action for those another tab or browser started, and a live progress bar in the sidebar,
    unless the running ones are among ``shown_live`` (runs whose progress the page's live view already
    shows, fed without a page rerun: a sidebar fragment would rerun every second, for nothing)."""
    active = [job for job in registry().jobs() if job.kind == kind and job.active]
    mine = [job for job in active if started_here(job)]
    if mine and st.sidebar.button(
        "■ Stop",
        key=f"{kind}.stop",
        width="stretch",
        help="Stop the run this tab started and cancel the ones it queued (runs of other tabs go on)",
    ):
        stop_runs(mine)
    others = [job for job in active if not started_here(job)]
    if others:
        stop_others(kind, others)
    with st.sidebar:
        progress_fragment(kind, shown_live or [])


def stop_runs(jobs: list[Job]) -> None:
    for job in jobs:
        job.stop()
    st.rerun()


def stop_others(kind: str, others: list[Job]) -> None:
    """Stopping runs that another tab or browser started: named, and only after a confirmation."""
    names = ", ".join(run_label(job) for job in others)
    with st.sidebar.expander(f"Runs started elsewhere ({len(others)})"):
        st.caption(f"{names}: started in another tab or browser, perhaps by someone else.")
        sure = st.checkbox(
            f"Yes, stop {len(others)} run(s) started elsewhere", key=f"{kind}.stop_others.sure"
        )
        if st.button("Stop runs started elsewhere", key=f"{kind}.stop_others", disabled=not sure):
            st.session_state.pop(f"{kind}.stop_others.sure", None)
            stop_runs(others)


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
