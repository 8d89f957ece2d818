"""Isotropy vs clusters: make the embeddings trainable under a linear classifier and watch IsoScore fall
while the silhouette rises (Mickus, Grönroos & Attieh 2024)."""

from __future__ import annotations

import streamlit as st

from engine import charts, lessons, paths
from ui import experiment, navigation
from ui.controls import KEEP, device_and_seed, snapshot_every, sources

P = "probe"
navigation.ensure_app()
st.title("Isotropy vs clusters")
st.caption(lessons.lesson(P).intro)


def sidebar() -> dict:
    sb = st.sidebar
    sb.header("Probe settings")
    uploads = sorted(p.name for p in paths.uploads_dir().glob("*") if p.is_file() and not p.name.startswith("."))
    data_options = ["demo", "rt-polarity", "snli", *[f"upload: {name}" for name in uploads]]
    data = sb.selectbox("Data", data_options, key=f"{P}.data", **KEEP,
                        help="demo: built-in topics corpus; rt-polarity and snli need the data folder; uploads come "
                             "from the Data & encoders page.")
    settings: dict = {}
    if data.startswith("upload: "):
        settings["data"] = str(paths.inside(paths.uploads_dir(), data.removeprefix("upload: "), what="upload"))
        cols = st.session_state.get(f"upload.cols.{data.removeprefix('upload: ')}", {})
        settings["text_col"], settings["label_col"] = cols.get("text"), cols.get("label")
    else:
        settings["data"] = data
    if data == "demo":
        label_col = sb.radio("Demo labels", ["topic", "sentiment"], horizontal=True, key=f"{P}.label", **KEEP)
        settings["label_col"] = None if label_col == "topic" else "sentiment"
    settings.update(sources(P))
    limit = sb.number_input("Limit (items, 0 = all)", 0, 10_000_000, 0, step=100, key=f"{P}.limit", **KEEP,
                            help="A stratified, seeded subset of the data.")
    settings["limit"] = int(limit) or None
    settings["steps"] = int(sb.number_input("Steps (Adam updates)", 1, 1_000_000, 200, step=50, key=f"{P}.steps", **KEEP))
    settings["lr"] = float(sb.number_input("Learning rate", 1e-6, 10.0, 1e-3, format="%.0e", key=f"{P}.lr", **KEEP))
    settings["metric_every"] = int(sb.number_input("Metrics every k steps", 1, 100_000, 1, key=f"{P}.every", **KEEP))
    sample = sb.number_input("Silhouette sample size (0 = exact)", 0, 10_000_000, 0, step=500, key=f"{P}.sample", **KEEP)
    settings["sample_size"] = int(sample) or None
    settings["snapshot_every"] = snapshot_every(P)
    settings["snapshot_limit"] = int(sb.number_input("Points projected", 10, 20_000, 2000, step=500,
                                                     key=f"{P}.snaplimit", **KEEP))
    settings.update(device_and_seed(P))
    return settings


experiment.run_panel(P, sidebar, ["loss", "accuracy", "isoscore", "silhouette"], charts.iso_sil_figure,
                     "No probe runs yet. Press ▶ Start in the sidebar, or a preset.")
