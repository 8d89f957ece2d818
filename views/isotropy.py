"""Isotropy vs clusters: make the embeddings trainable under a linear classifier and watch IsoScore fall
while the silhouette rises (Mickus, Grönroos & Attieh 2024)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.core import paths
from engine.core.errors import ConfigError
from engine.data.builtin import DEMO_LABELS
from engine.data.registry import known_classes, labelled_sets
from engine.probe.entry import EXPERIMENT
from ui import experiment, fields
from ui.controls import KEEP, device_and_seed, encoder_dims, sources
from ui.live import capped_note


def data_choice() -> dict:
    """The data of the run: a built-in set or an upload (with its columns), and the demo's labels."""
    sb = st.sidebar
    uploads = sorted(
        p.name for p in paths.uploads_dir().glob("*") if p.is_file() and not p.name.startswith(".")
    )
    data_options = [*labelled_sets(), *[f"upload: {name}" for name in uploads]]
    data_key = fields.key(EXPERIMENT, "data")
    if st.session_state.get(data_key) not in (None, *data_options):
        st.session_state.pop(data_key)  # a deleted upload
    data = sb.selectbox(
        "Data",
        data_options,
        key=data_key,
        **KEEP,
        help="demo: built-in topics corpus; rt-polarity, snli and the WordNet word sets (the isotropy "
        "paper's setups iii and iv) need the data folder; uploads (tables or .npz embeddings) "
        "come from the Data & encoders page.",
    )
    settings: dict = {}
    if data.startswith("upload: "):
        settings["data"] = str(
            paths.inside(paths.uploads_dir(), data.removeprefix("upload: "), what="upload")
        )
        cols = st.session_state.get(f"upload.cols.{data.removeprefix('upload: ')}", {})
        settings["text_col"], settings["label_col"] = cols.get("text"), cols.get("label")
    else:
        settings["data"] = data
    if data == "demo":
        label_col = sb.radio(
            "Demo labels", DEMO_LABELS, horizontal=True, key=fields.key(EXPERIMENT, "label_col"), **KEEP
        )
        settings["label_col"] = None if label_col == DEMO_LABELS[0] else label_col
    return settings


def sidebar() -> dict:
    """The run's settings: the data (page choices), then every knob from its declaration."""
    sb = st.sidebar
    sb.header("Probe settings")
    settings = data_choice()
    settings.update(sources(EXPERIMENT))
    settings["limit"] = fields.draw(EXPERIMENT, "limit")
    dims = encoder_dims(settings["encoder"])
    if settings["limit"] and dims and 2 <= settings["limit"] <= dims:
        sb.caption(capped_note(settings["limit"], dims))
    settings.update(fields.draw_all(EXPERIMENT, ["steps", "lr", "metric_every", "sample_size"]))
    if settings["sample_size"] and dims and 2 <= settings["sample_size"] <= dims:
        sb.caption(capped_note(settings["sample_size"], dims, " on a sample this small"))
    fixed = fields.draw(EXPERIMENT, "fixed_sample", disabled=not settings["sample_size"])
    settings["fixed_sample"] = bool(fixed and settings["sample_size"])
    settings.update(fields.draw_all(EXPERIMENT, ["geometry_every", "objective"]))
    if settings["objective"] == "triplet":
        settings["margin"] = fields.draw(EXPERIMENT, "margin")
    settings.update(fields.draw_all(EXPERIMENT, ["snapshot_every", "snapshot_limit", "lecture_pace"]))
    settings.update(device_and_seed(EXPERIMENT))
    return settings


@st.cache_data(show_spinner=False, max_entries=32)
def labels_in(data: str, text_col: str | None, label_col: str | None, stamp: tuple) -> list[str] | None:
    """The labels of a local data set (the demo, an upload) as text, loaded once per version of its file
    (``stamp``); None where it holds no labels; ``[]`` where it cannot be loaded here (the run then says
    why)."""
    from engine.data import load_dataset

    try:
        dataset = load_dataset(data, text_col=text_col, label_col=label_col)
    except Exception:  # noqa: BLE001 - the run itself then says what is wrong with the data
        return []
    labels = getattr(dataset, "labels", None)
    return None if labels is None else [str(label) for label in labels]


NO_LABELS = (
    "{name} has no label column, and the probe needs a class per sentence: pick its “Label column” on the "
    "Data & encoders page, or upload a labelled file."
)


def marked_unlabelled(name: str) -> bool:
    """Whether the Data page's “Label column” of upload ``name`` is “(none)”: the user said the file has no
    labels, so no column guessed from it may stand in for them."""
    return bool(st.session_state.get(f"upload.cols.{name}", {}).get("unlabelled"))


def classes_of(config: dict) -> tuple[int, str] | None:
    """(number of classes, what they are) of the run's data, where it is known without the network; a
    file with no labels (an upload whose label column is "(none)") is a one-line error naming the fix."""
    data = config["data"]
    if known_classes(data) is not None:
        return known_classes(data), f"{data}'s labels"
    found = Path(data)
    stamp = (found.stat().st_mtime_ns, found.stat().st_size) if found.is_file() else ()
    labels = labels_in(data, config.get("text_col"), config.get("label_col"), stamp)
    if labels is None:
        raise ConfigError(NO_LABELS.format(name=found.name))
    if not labels:
        return None
    what = (
        "the demo topics" if data == "demo" and not config.get("label_col") else f"the labels of {found.name}"
    )
    return len(set(labels)), what


def check(config: dict) -> None:
    """Before Start: an upload with no labels, or a Limit that leaves no more items than classes (the
    silhouette is then impossible), keeps Start off (the knobs' own ranges: their declarations)."""
    limit = config.get("limit")
    upload = known_classes(config["data"]) is None and Path(config["data"]).is_file()
    if upload and marked_unlabelled(Path(config["data"]).name):
        raise ConfigError(NO_LABELS.format(name=Path(config["data"]).name))
    found = classes_of(config) if limit or upload else None
    if limit and found is not None and limit <= found[0]:
        raise ConfigError(
            f"“Limit” {limit} leaves too few items for the {found[0]} classes of {found[1]}: the "
            f"silhouette needs more items than classes. Set “Limit” to at least {found[0] + 1}, or to "
            "0 for all items."
        )


experiment.experiment_page(EXPERIMENT, sidebar, check=check)
