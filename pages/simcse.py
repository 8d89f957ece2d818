"""SimCSE training with its ablations as switches; alignment–uniformity plane as in the paper's Figure 2."""

from __future__ import annotations

import streamlit as st

from engine import charts, lessons
from ui import experiment, navigation
from ui.controls import KEEP, device_and_seed, snapshot_every, sources

P = "simcse"
navigation.ensure_app()
st.title("SimCSE training")
st.caption(lessons.lesson(P).intro)


def sidebar() -> dict:
    from engine.simcse.views import VIEWS

    sb = st.sidebar
    sb.header("SimCSE settings")
    supervised = sb.toggle("Supervised (NLI triples)", key=f"{P}.sup", **KEEP,
                           help="Entailment as positive, contradiction as hard negative (weight α).")
    settings: dict = {"mode": "sup" if supervised else "unsup"}
    train_options = ["auto (wiki1m / snli from the data folder, else demo)", "demo-nli" if supervised else "demo"]
    train = sb.selectbox("Training data", train_options, key=f"{P}.train{int(supervised)}", **KEEP)
    settings["train"] = None if train.startswith("auto") else train
    settings.update(sources(P))
    settings["steps"] = int(sb.number_input("Steps", 1, 10_000_000, 100, step=50, key=f"{P}.steps", **KEEP))
    settings["lr"] = float(sb.number_input("Learning rate", 1e-7, 1.0, 3e-5, format="%.0e", key=f"{P}.lr", **KEEP))
    settings["batch_size"] = int(sb.number_input("Batch size", 2, 4096, 32, key=f"{P}.batch", **KEEP))
    settings["eval_every"] = int(sb.number_input("Evaluate every k steps", 1, 100_000, 10, key=f"{P}.every", **KEEP))
    eval_limit = sb.number_input("STS pairs evaluated (0 = all)", 0, 100_000, 250, step=50, key=f"{P}.evlimit", **KEEP)
    settings["eval_limit"] = int(eval_limit) or None
    settings["probe"] = "demo" if sb.toggle("Silhouette on the demo topics", value=True, key=f"{P}.probe", **KEEP) else None
    settings["snapshot_every"] = snapshot_every(P)
    settings.update(device_and_seed(P))

    sb.subheader("Ablations (views)")
    dropout = VIEWS["dropout"]
    p = dropout.params[0]
    settings["dropout"] = float(sb.slider("Dropout p (0 = off)", p.low, p.high, p.default, 0.01, key=f"{P}.dropout",
                                          **KEEP))
    sb.caption(dropout.explanation)
    if supervised:
        alpha = sb.number_input("Hard-negative weight α", 0.01, 100.0, 1.0, key=f"{P}.alpha", **KEEP)
        settings["hard_negative_weight"] = float(alpha)
        sb.caption("log α is added to each anchor's own contradiction logit (paper Table 7: α = 1 is best).")
    else:
        same = sb.toggle("Same mask (fixed 0.1)", key=f"{P}.same", **KEEP)
        sb.caption(VIEWS["same-mask"].explanation)
        augment = sb.radio("Augmentation of the positive", ["none", "delete-one-word", "crop", "word-deletion"],
                           key=f"{P}.augment", **KEEP)
        if augment != "none":
            sb.caption(VIEWS[augment].explanation)
        if augment in ("crop", "word-deletion"):
            rate = VIEWS[augment].params[0]
            settings["augment_rate"] = float(sb.slider("k (fraction of words)", rate.low, rate.high, rate.default, 0.05,
                                                       key=f"{P}.rate", **KEEP))
        settings["same_mask"], settings["augment"] = bool(same), augment
    return settings


experiment.run_panel(
    P, sidebar, ["loss", "sts_spearman", "alignment", "uniformity", "isoscore", "probe_silhouette", "probe_isoscore"],
    charts.align_uniform_figure, "No SimCSE runs yet. Press ▶ Start in the sidebar, or the preset “SimCSE Figure 2”.")
