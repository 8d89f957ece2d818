"""Sidebar controls shared by the experiment pages: the data folder, the encoder, device and seed, presets,
Stop and the progress footer. The knobs' own widgets are drawn from their declarations by :mod:`ui.fields`.
Each takes the registered experiment (:class:`~engine.core.declaration.Experiment`) of its page; its kind
prefixes the widget keys.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import streamlit as st

from engine import experiments
from engine.core.declaration import Experiment
from engine.core.errors import ConfigError
from engine.core.setting_checks import get_or_default
from engine.jobs import Job
from ui import fields
from ui.fields import BUNDLED, KEEP, show_settings
from ui.runs import guard, progress_text, registry, run_label, started_here, submit_runs
from ui.text import plain, ui_words

BUNDLED_CHOICE = "bundled (all-MiniLM-L6-v2)"
OTHER = "other"  # the encoder picker's value for a typed hub id or folder
AUTO = "auto"  # the training data the data folder decides
DEVICE_NAMES = {"cpu": "the CPU", "cuda": "the CUDA GPU", "mps": "Apple's GPU (MPS)"}


# ------------------------------------------------------------------------------------------ inputs


def labelled_set_snapshots_device(experiment: Experiment) -> dict[str, Any]:
    """The sidebar's tail on a page that trains an encoder (SimCSE, JEPA): the silhouette on the demo
    topics (on at first), the UMAP frames every k steps, then the seed and the device."""
    labelled_key = fields.key(experiment, "probe")
    probe = st.sidebar.toggle(
        "Silhouette on the demo topics",
        key=labelled_key,
        **fields.first_value(labelled_key, value=True),
        **KEEP,
    )
    return {
        "probe": "demo" if probe else None,
        "snapshot_every": fields.draw(experiment, "snapshot_every"),
        **device_and_seed(experiment),
    }


def device_and_seed(experiment: Experiment) -> dict[str, Any]:
    """The seed and the device of a run, side by side; under them the device "auto" resolves to on this
    machine, or why the chosen one cannot run (Start is then off)."""
    cols = st.sidebar.columns(2)
    chosen = {
        "seed": fields.draw(experiment, "seed", box=cols[0]),
        "device": fields.draw(experiment, "device", box=cols[1]),
    }
    from engine.compute.device import resolve_device

    try:
        device = resolve_device(chosen["device"])
    except ConfigError as err:
        found = f"“Device”: {ui_words(err)}"
        st.sidebar.error(plain(found), icon=":material/memory:")
        fields.add_problem(experiment.kind, found)
    else:
        if chosen["device"] == "auto":
            st.sidebar.caption(f"Device auto: {DEVICE_NAMES.get(device.type, device.type)} on this machine.")
    return chosen


def encoder_choice(experiment: Experiment) -> str | None:
    """Encoder picker: the bundled model, the starts derived from it (:mod:`engine.encoders.starts`),
    encoders saved in cache/encoders, or a hub id / folder. The widget holds the value a run gets
    (:data:`BUNDLED`: None), so that a preset can show its encoder (:func:`ui.fields.encoder_shown`)."""
    from engine.encoders import list_encoders
    from engine.encoders.starts import STARTS

    names = []
    with contextlib.suppress(Exception):
        names = [info.name for info in list_encoders() if not info.bundled]
    options = [BUNDLED, *STARTS, *names, OTHER]
    labels = {BUNDLED: BUNDLED_CHOICE, OTHER: "other: hub id or folder"}
    labels.update({name: f"{name}: {start.title}" for name, start in STARTS.items()})
    choice = st.sidebar.selectbox(
        "Encoder",
        options,
        key=fields.key(experiment, "encoder"),
        format_func=lambda option: labels.get(option, option),
        **KEEP,
        help="The bundled model and its [CLS] start work offline. "
        + " ".join(f"{name}: {start.about}." for name, start in STARTS.items())
        + " Saved encoders come from SimCSE runs.",
    )
    if choice == BUNDLED:
        return None
    if choice == OTHER:
        text = st.sidebar.text_input(
            "Hub id or local folder",
            key=fields.key(experiment, "encoder_text"),
            **KEEP,
            placeholder="e.g. bert-base-uncased or /path/to/model",
        )
        return text.strip() or None
    return choice


def encoder_dims(encoder: str | None) -> int | None:
    """The embedding size of the bundled encoder (or a start derived from it) or a saved one (from its
    config.json), else None (unknown)."""
    from engine.encoders import list_encoders
    from engine.encoders.starts import start_named

    bundled = encoder is None or start_named(encoder) is not None
    with contextlib.suppress(Exception):
        for info in list_encoders():
            if (bundled and info.bundled) or (encoder is not None and info.name == encoder):
                return int(json.loads((info.path / "config.json").read_text(encoding="utf-8"))["hidden_size"])
    return None


def folder_problem(text: str) -> str | None:
    """Why the data folder typed in the sidebar cannot be read (None: it can, or the field is empty)."""
    from pathlib import Path

    if not text.strip():
        return None
    folder = Path(text.strip()).expanduser()
    if not folder.exists():
        return f"“Data folder”: {folder} does not exist. Fix the path, or empty the field for the demo data."
    if not folder.is_dir():
        return f"“Data folder”: {folder} is a file, not a folder."
    return None


def folder_contents(text: str) -> str:
    """What the data folder holds, in words (the real data sets' sub-folders it has)."""
    from pathlib import Path

    from engine.data import DATASETS

    folder = Path(text.strip()).expanduser()
    found = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    known = [name for name in found if any(key.startswith(name) for key in DATASETS)]
    return f"Holds: {', '.join(known)}." if known else "Holds none of the real data sets' folders."


def data_dir_input(experiment: Experiment) -> str | None:
    """The data folder field, checked when entered: a missing folder is named under the field (and keeps Start
    off) until it is fixed; a readable one says which data sets it holds."""
    from engine.lessons.presets import default_data_dir

    key_name = fields.key(experiment, "data_dir")
    value = st.sidebar.text_input(
        "Data folder (real data sets)",
        key=key_name,
        **fields.first_value(key_name, value=default_data_dir() or ""),
        **KEEP,
        help="Folder holding rt-polarity/, snli/, stsb/, wiki/ (e.g. ../shared/data). "
        "The Data & encoders page, tab “Get the data”, shows how to get them.",
    )
    found = folder_problem(value)  # at every run: when entered, and cleared once fixed
    if found is not None:
        st.sidebar.error(plain(found), icon=":material/folder_off:")
        fields.add_problem(experiment.kind, found)
    elif value.strip():
        with contextlib.suppress(OSError):
            st.sidebar.caption(folder_contents(value))
    return value.strip() or None


def training_choice(experiment: Experiment, supervised: bool, data_dir: str | None, name: str) -> str | None:
    """The training data of a SimCSE or JEPA run, picked under the key ``<kind>.<name>``: "auto" names the
    set it resolves to with this data folder (:func:`engine.training.data.default_sets`: wiki1m / snli when
    the folder has them, else the demo)."""
    from engine.simcse.config import SimCSEConfig
    from engine.training.data import default_sets

    resolved = default_sets(SimCSEConfig(mode="sup" if supervised else "unsup", data_dir=data_dir))[0]
    where = "from the data folder" if resolved in ("wiki1m", "snli") else "no wiki/ or snli/ in a data folder"
    names = {AUTO: f"auto: {resolved} ({where})"}
    options = [AUTO, "demo-nli" if supervised else "demo"]
    train = st.sidebar.selectbox(
        "Training data",
        options,
        key=fields.key(experiment, name),
        format_func=lambda option: names.get(option, option),
        **KEEP,
        help="auto: wiki1m (unsupervised) or snli (supervised) when the data folder holds it, else the "
        "built-in demo corpus.",
    )
    return None if train == AUTO else train


def sources(experiment: Experiment) -> dict[str, Any]:
    """The data folder and the encoder of a run of ``experiment`` (in this order in the sidebar)."""
    return {"data_dir": data_dir_input(experiment), "encoder": encoder_choice(experiment)}


def preset_buttons(experiment: Experiment, current: dict[str, Any]) -> None:
    """One button per preset of ``experiment``: queues its runs on top of the ``current`` settings (a run of
    another experiment under that experiment), and the sidebar then shows the preset's settings (those of
    its run, or those its runs share)."""
    from engine.lessons.presets import for_kind, queue

    kind = experiment.kind
    found = for_kind(kind, current)
    if not found:
        return
    st.sidebar.markdown("**Presets**")
    for name, preset in found.items():
        if st.sidebar.button(name, key=f"{kind}.preset.{name}", help=preset.description, width="stretch"):
            with guard(f"{name}: "):
                queued = queue(preset, current)
                made = []
                for run_kind in dict.fromkeys(run.kind for run in queued):  # a run of another experiment too
                    made += submit_runs(  # a queued run names its experiment by its kind
                        experiments.require(run_kind),
                        [(run.name, run.fields) for run in queued if run.kind == run_kind],
                        name,
                    )
                beside = experiment.section.beside if experiment.section else ()
                st.session_state[f"{kind}.shown"] = [job.id for job in made if job.kind in (kind, *beside)]
                runs = preset.configs(current)
                show_settings(experiment, runs[0][1] if len(runs) == 1 else {**current, **preset.base})
                st.rerun()
        if preset.note:  # e.g. which start it uses and why (issue 58)
            st.sidebar.caption(plain(preset.note))


def sidebar_controls_footer(experiment: Experiment, shown_live: list[Job] | None = None) -> None:
    """■ Stop for the queued and running runs of ``experiment`` that this browser session started, a separate
    confirmed action for those another tab or browser started, and a live progress bar in the sidebar,
    unless the running ones are among ``shown_live`` (runs whose progress the page's live view already
    shows, fed without a page rerun: a sidebar fragment would rerun every second, for nothing)."""
    kind = experiment.kind
    active = [job for job in registry().jobs() if job.kind == kind and job.active]
    mine = [job for job in active if started_here(job)]
    if mine and st.sidebar.button(
        "Stop",
        icon=":material/stop:",
        key=f"{kind}.stop",
        width="stretch",
        help="Stop the run this tab started and cancel the ones it queued (runs of other tabs go on)",
    ):
        stop_runs(mine)
    others = [job for job in active if not started_here(job)]
    if others:
        stop_others(experiment, others)
    with st.sidebar:
        progress_fragment(experiment, shown_live or [])


def stop_runs(jobs: list[Job]) -> None:
    for job in jobs:
        job.stop()
    st.rerun()


def stop_others(experiment: Experiment, others: list[Job]) -> None:
    """Stopping runs of ``experiment`` that another tab or browser started: named, and only after a
    confirmation."""
    kind = experiment.kind
    names = ", ".join(run_label(job) for job in others)
    with st.sidebar.expander(f"Runs started elsewhere ({len(others)})"):
        st.caption(f"{plain(names)}: started in another tab or browser, perhaps by someone else.")
        sure = st.checkbox(
            f"Yes, stop {len(others)} run(s) started elsewhere", key=f"{kind}.stop_others.sure"
        )
        if st.button("Stop runs started elsewhere", key=f"{kind}.stop_others", disabled=not sure):
            st.session_state.pop(f"{kind}.stop_others.sure", None)
            stop_runs(others)


def progress_fragment(experiment: Experiment, shown_live: list[Job]) -> None:
    """The sidebar's progress of the runs of ``experiment``: one fragment, registered at every run of the page
    (refreshing every ``live_seconds`` while a run goes and the live view does not show its progress), so
    that a refresh the browser asked for just before a full rerun always finds it (Streamlit logs a warning
    for a fragment that a rerun no longer registers)."""
    reg = registry()
    kind = experiment.kind
    going = [job for job in reg.jobs() if job.kind == kind and job.active]
    beside = bool(going) and {job.id for job in going} <= {job.id for job in shown_live}
    live = not beside and any(job.active for job in reg.jobs())

    @st.fragment(run_every=get_or_default("live_seconds") if live else None)
    def progress() -> None:
        if beside:
            st.caption(f"{plain(', '.join(run_label(job) for job in going))}: progress beside the charts.")
            return
        jobs = [
            job for job in registry().jobs() if job.kind == kind and (job.active or job is registry().current)
        ]
        for job in jobs:
            fraction, text = progress_text(job)
            st.progress(fraction, plain(text))  # Markdown: a run's name drawn as text
        if not jobs:
            st.caption("No run going. Pick settings or a preset and press Start.")

    progress()
