"""Sidebar controls shared by the experiment pages: inputs, presets, Stop and the progress footer."""

from __future__ import annotations

import contextlib
from typing import Any

import streamlit as st

from engine import settings
from engine.jobs import Job
from ui.runs import guard, progress_text, registry, run_label, submit_runs

KEEP = {"persist_state": "session"}  # widget values survive page switches


def device_and_seed(prefix: str) -> dict[str, Any]:
    cols = st.sidebar.columns(2)
    seed = cols[0].number_input("Seed", 0, 2**31 - 1, 0, key=f"{prefix}.seed", **KEEP)
    device = cols[1].selectbox("Device", ["auto", "cpu", "cuda"], key=f"{prefix}.device", **KEEP)
    return {"seed": int(seed), "device": device}


def encoder_choice(prefix: str) -> str | None:
    """Encoder picker: the bundled model, encoders saved in cache/encoders, or a hub id / folder."""
    from engine.encoders import list_encoders

    names = []
    with contextlib.suppress(Exception):
        names = [info.name for info in list_encoders() if not info.bundled]
    options = ["bundled (all-MiniLM-L6-v2)", *names, "other: hub id or folder"]
    choice = st.sidebar.selectbox("Encoder", options, key=f"{prefix}.encoder", **KEEP,
                                  help="The bundled model works offline. Saved encoders come from SimCSE runs.")
    if choice == options[0]:
        return None
    if choice == options[-1]:
        text = st.sidebar.text_input("Hub id or local folder", key=f"{prefix}.encoder_text", **KEEP,
                                     placeholder="e.g. bert-base-uncased or /path/to/model")
        return text.strip() or None
    return choice


def data_dir_input(prefix: str) -> str | None:
    from engine.presets import default_data_dir

    default = default_data_dir() or ""
    value = st.sidebar.text_input("Data folder (real data sets)", value=default, key=f"{prefix}.data_dir", **KEEP,
                                  help="Folder holding rt-polarity/, snli/, stsb/, wiki/ (e.g. ../shared/data).")
    return value.strip() or None


def sources(prefix: str) -> dict[str, Any]:
    """The data folder and the encoder of a run (in this order in the sidebar)."""
    return {"data_dir": data_dir_input(prefix), "encoder": encoder_choice(prefix)}


def snapshot_every(prefix: str) -> int:
    """The UMAP frame interval of a run (0: no snapshots, no projection)."""
    return int(st.sidebar.number_input("UMAP frame every k steps (0 = off)", 0, 100_000, 10, key=f"{prefix}.snap",
                                       **KEEP))


def preset_buttons(kind: str, current: dict[str, Any]) -> None:
    """One button per preset of this kind: queues its runs on top of the ``current`` settings."""
    from engine.presets import for_kind

    found = for_kind(kind)
    if not found:
        return
    st.sidebar.markdown("**Presets**")
    for name, preset in found.items():
        if st.sidebar.button(name, key=f"{kind}.preset.{name}", help=preset.description, width="stretch"):
            with guard(f"{name}: "):
                submit_runs(kind, preset.configs(current))
                st.rerun()


def sidebar_controls_footer(kind: str, shown_live: list[Job] | None = None) -> None:
    """Stop for queued and running jobs of this kind, and a live progress bar in the sidebar, unless the
    running ones are among ``shown_live`` (runs whose progress the page's live panel already refreshes: one
    rerun a second instead of two, for the browser's sake)."""
    reg = registry()
    active = [job for job in reg.jobs() if job.kind == kind and job.active]
    if active and st.sidebar.button("■ Stop", key=f"{kind}.stop", width="stretch", help="Stop the running run and cancel queued ones"):
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
        jobs = [job for job in registry().jobs() if job.kind == kind and (job.active or job is registry().current)]
        for job in jobs:
            st.progress(*progress_text(job))
        if not jobs:
            st.caption("No run going. Pick settings or a preset and press Start.")

    progress()
