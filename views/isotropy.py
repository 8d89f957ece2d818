"""Isotropy vs clusters: make the embeddings trainable under a linear classifier and watch IsoScore fall
while the silhouette rises (Mickus, Grönroos & Attieh 2024)."""

from __future__ import annotations

import streamlit as st

from engine import charts, lessons, paths
from engine.errors import ConfigError
from ui import experiment
from ui.controls import KEEP, device_and_seed, encoder_dims, number, snapshot_every, sources
from ui.live import capped_note

P = "probe"
CLASSES = {"rt-polarity": 2, "snli": 3}  # the real sets' classes (counted without loading them)
st.title("Isotropy vs clusters")
st.caption(lessons.lesson(P).intro)


def sidebar() -> dict:
    sb = st.sidebar
    sb.header("Probe settings")
    uploads = sorted(
        p.name for p in paths.uploads_dir().glob("*") if p.is_file() and not p.name.startswith(".")
    )
    data_options = [
        "demo",
        "rt-polarity",
        "snli",
        "wordnet-pos",
        "wordnet-supersenses",
        *[f"upload: {name}" for name in uploads],
    ]
    if st.session_state.get(f"{P}.data") not in (None, *data_options):
        st.session_state.pop(f"{P}.data")  # a deleted upload
    data = sb.selectbox(
        "Data",
        data_options,
        key=f"{P}.data",
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
        label_col = sb.radio("Demo labels", ["topic", "sentiment"], horizontal=True, key=f"{P}.label", **KEEP)
        settings["label_col"] = None if label_col == "topic" else "sentiment"
    settings.update(sources(P))
    limit = number(
        "Limit (items, 0 = all)",
        f"{P}.limit",
        0,
        10_000_000,
        0,
        step=100,
        help="A stratified, seeded subset of the data; it must leave more items than classes.",
    )
    settings["limit"] = int(limit) or None
    dims = encoder_dims(settings["encoder"])
    if settings["limit"] and dims and 2 <= settings["limit"] <= dims:
        sb.caption(capped_note(settings["limit"], dims))
    settings["steps"] = int(number("Steps (Adam updates)", f"{P}.steps", 1, 1_000_000, 200, step=50))
    settings["lr"] = float(
        number(
            "Learning rate",
            f"{P}.lr",
            1e-6,
            10.0,
            1e-3,
            fmt="%.0e",
            help="Adam's step size (the paper: 1e-3). Too high and the loss diverges.",
        )
    )
    settings["metric_every"] = int(number("Metrics every k steps", f"{P}.every", 1, 100_000, 1))
    sample = number(
        "Geometry sample size (0 = all items)",
        f"{P}.sample",
        0,
        10_000_000,
        0,
        step=500,
        help="0: every measure (IsoScore, silhouette, spectrum, effective rank, average cosine, I(W), "
        "alignment, uniformity) on all items, exactly; else on a seeded sample of this many items "
        "(at least 2), a fresh one at each logged step.",
    )
    settings["sample_size"] = int(sample) or None
    if settings["sample_size"] and dims and 2 <= settings["sample_size"] <= dims:
        sb.caption(capped_note(settings["sample_size"], dims, " on a sample this small"))
    fixed = sb.checkbox(
        "Fixed sample",
        key=f"{P}.fixed",
        **KEEP,
        disabled=not settings["sample_size"],
        help="One sample (step 0's) for the whole run instead of a fresh one per logged step: the "
        "measures then follow the same items. Needs a geometry sample size.",
    )
    settings["fixed_sample"] = bool(fixed and settings["sample_size"])
    settings["geometry_every"] = int(
        number(
            "Spectrum every k logged steps (0 = never)",
            f"{P}.geomevery",
            0,
            1_000_000,
            10,
            help="The spectrum, effective rank, I(W) and uniformity on every k-th logged step (and the first and "
            "last): 1 measures them at every logged step, at a cost.",
        )
    )
    objective = sb.selectbox(
        "Objective",
        ["classifier", "triplet"],
        key=f"{P}.objective",
        **KEEP,
        help="classifier: a linear classifier on the embeddings (the paper). triplet: no "
        "classifier; a same-label positive must be closer than a negative by the margin "
        "(the paper's Appendix B).",
    )
    settings["objective"] = objective
    if objective == "triplet":
        settings["margin"] = float(
            number(
                "Triplet margin",
                f"{P}.margin",
                0.0,
                1_000_000.0,
                1.0,
                step=0.1,
                help="How much closer (Euclidean distance) the positive must be than the negative.",
            )
        )
    settings["snapshot_every"] = snapshot_every(P)
    settings["snapshot_limit"] = int(
        number(
            "Points projected",
            f"{P}.snaplimit",
            10,
            20_000,
            2000,
            step=500,
            help="A seeded subset of the items kept in the snapshots and the film.",
        )
    )
    settings.update(device_and_seed(P))
    return settings


def classes_of(config: dict) -> tuple[int, str] | None:
    """(number of classes, what they are) of the run's data, where it is known without the network."""
    data = config["data"]
    if data in CLASSES:
        return CLASSES[data], f"{data}'s labels"
    from engine.data import load_dataset

    try:  # the demo corpus and uploads are local files
        dataset = load_dataset(data, text_col=config.get("text_col"), label_col=config.get("label_col"))
    except Exception:  # noqa: BLE001 - the run itself then says what is wrong with the data
        return None
    labels = getattr(dataset, "labels", None)
    if labels is None:
        return None
    what = (
        "the demo topics"
        if data == "demo" and not config.get("label_col")
        else f"the labels of {data.rsplit('/', 1)[-1]}"
    )
    return len({str(label) for label in labels}), what


def check(config: dict) -> None:
    """Before Start: a Limit that leaves no more items than classes makes the silhouette impossible."""
    limit = config.get("limit")
    found = classes_of(config) if limit else None
    if found is not None and limit <= found[0]:
        raise ConfigError(
            f"“Limit” {limit} leaves too few items for the {found[0]} classes of {found[1]}: the "
            f"silhouette needs more items than classes. Set “Limit” to at least {found[0] + 1}, or to "
            "0 for all items."
        )
    sample = config.get("sample_size")
    if sample is not None and sample < 2:
        raise ConfigError("“Geometry sample size” must be 0 (all items) or at least 2.")


def relation(runs: dict, where=None, style=None):
    """The alignment–uniformity plane of the probe runs (their class alignment), when they log it."""
    if not charts.available_metrics(runs, ["class_alignment"]):
        return None
    return charts.align_uniform_figure(runs, measured_on=where("uniformity") if where else None, style=style)


#: the probe's measures (engine.probe.measure.COLUMNS; its ``alignment`` is the class alignment, charted as
#: ``class_alignment``; effective rank, I(W), uniformity and the spectrum every few logged steps)
METRICS = [
    "loss",
    "accuracy",
    "micro_f1",
    "isoscore",
    "silhouette",
    "effective_rank",
    "average_cosine",
    "partition_isotropy",
    "uniformity",
    "class_alignment",
]
DRAWN = ["loss", "accuracy", "isoscore", "silhouette", "effective_rank", charts.SPECTRUM]
experiment.run_panel(
    P,
    sidebar,
    METRICS,
    relation,
    "No probe runs yet. Press ▶ Start in the sidebar, or a preset.",
    check=check,
    drawn=DRAWN,
    pair=("isoscore", "silhouette"),
)
