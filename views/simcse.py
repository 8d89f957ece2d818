"""SimCSE training with its ablations as switches; alignment–uniformity plane as in the paper's Figure 2."""

from __future__ import annotations

import streamlit as st

from engine import charts, lessons
from engine.presets import sts_evaluation
from ui import experiment
from ui.controls import KEEP, device_and_seed, encoder_dims, number, snapshot_every, sources
from ui.live import capped_note
from ui.text import readable_references

P = "simcse"
st.title("SimCSE training")
st.caption(lessons.lesson(P).intro)


def sidebar() -> dict:
    from engine.simcse.views import VIEWS

    sb = st.sidebar
    sb.header("SimCSE settings")
    supervised = sb.toggle(
        "Supervised (NLI triples)",
        key=f"{P}.sup",
        **KEEP,
        help="Entailment as positive, contradiction as hard negative (weight α).",
    )
    settings: dict = {"mode": "sup" if supervised else "unsup"}
    train_options = [
        "auto (wiki1m / snli from the data folder, else demo)",
        "demo-nli" if supervised else "demo",
    ]
    train = sb.selectbox("Training data", train_options, key=f"{P}.train{int(supervised)}", **KEEP)
    settings["train"] = None if train.startswith("auto") else train
    settings.update(sources(P))
    sb.caption(f"Evaluation (STS Spearman, alignment, uniformity): on {sts_evaluation(settings)}.")
    settings["steps"] = int(number("Steps", f"{P}.steps", 1, 10_000_000, 100, step=50))
    settings["lr"] = float(
        number(
            "Learning rate",
            f"{P}.lr",
            1e-7,
            1.0,
            3e-5,
            fmt="%.0e",
            help="AdamW's step size, decayed linearly to 0 (the paper: 3e-5).",
        )
    )
    settings["batch_size"] = int(
        number(
            "Batch size",
            f"{P}.batch",
            2,
            4096,
            32,
            help="Sentences per step; the other sentences of the batch are the negatives.",
        )
    )
    settings["eval_every"] = int(number("Evaluate every k steps", f"{P}.every", 1, 100_000, 10))
    eval_limit = number(
        "STS pairs evaluated (0 = all)",
        f"{P}.evlimit",
        0,
        100_000,
        250,
        step=50,
        help="A seeded subset of the evaluation pairs (0: all of them; otherwise at least 2).",
    )
    settings["eval_limit"] = int(eval_limit) or None
    dims = encoder_dims(settings["encoder"])
    if settings["eval_limit"] and dims and 2 * settings["eval_limit"] <= dims:
        sb.caption(
            capped_note(2 * settings["eval_limit"], dims, " on at most that many evaluation sentences")
        )
    settings["probe"] = (
        "demo" if sb.toggle("Silhouette on the demo topics", value=True, key=f"{P}.probe", **KEEP) else None
    )
    settings["snapshot_every"] = snapshot_every(P)
    settings.update(device_and_seed(P))
    save = sb.text_input(
        "Save the trained encoder as",
        key=f"{P}.save",
        **KEEP,
        placeholder="a name (optional)",
        help="When the run finishes, the encoder is saved under this name: pick it as Encoder on "
        "either page, and rename or delete it on the Data & encoders page.",
    )
    settings["save_encoder"] = save.strip() or None
    settings["replace_encoder"] = bool(
        sb.checkbox(
            "Replace an existing one",
            key=f"{P}.replace",
            **KEEP,
            help="Allow overwriting a saved encoder of that name.",
        )
    )

    sb.subheader("Ablations (views)")
    dropout = VIEWS["dropout"]
    p = dropout.params[0]
    same = False
    if not supervised:
        same = sb.toggle(
            "Same mask (fixed 0.1)",
            key=f"{P}.same",
            **KEEP,
            help="One dropout mask for both views (the paper's “fixed 0.1”).",
        )
        issue = "GitHub issue 36"
        sb.caption(
            lessons.SAME_MASK.replace(issue, f"[{issue}]({lessons.SAME_MASK_LINK})")
            if same
            else readable_references(VIEWS["same-mask"].explanation)
        )
    rate = sb.slider(
        "Dropout p (0 = off)",
        p.low,
        p.high,
        p.default,
        0.01,
        key=f"{P}.dropout",
        **KEEP,
        disabled=same,
        help="Off while “Same mask” is on: that ablation fixes the rate at 0.1." if same else None,
    )
    settings["dropout"] = lessons.SAME_MASK_DROPOUT if same else float(rate)
    if not same:
        sb.caption(readable_references(dropout.explanation))
    if supervised:
        alpha = number("Hard-negative weight α", f"{P}.alpha", 0.01, 100.0, 1.0)
        settings["hard_negative_weight"] = float(alpha)
        sb.caption("log α is added to each anchor's own contradiction logit (paper Table 7: α = 1 is best).")
    else:
        augment = sb.radio(
            "Augmentation of the positive",
            ["none", "delete-one-word", "crop", "word-deletion"],
            key=f"{P}.augment",
            **KEEP,
        )
        if augment != "none":
            sb.caption(readable_references(VIEWS[augment].explanation))
        if augment in ("crop", "word-deletion"):
            rate = VIEWS[augment].params[0]
            settings["augment_rate"] = float(
                sb.slider(
                    "k (fraction of words)", rate.low, rate.high, rate.default, 0.05, key=f"{P}.rate", **KEEP
                )
            )
        settings["same_mask"], settings["augment"] = bool(same), augment
    return settings


def check(config: dict) -> None:
    """Before Start: the encoder's save name is free (or may be replaced) and usable."""
    if config.get("save_encoder"):
        from engine.encoders.store import check_save_name

        check_save_name(config["save_encoder"], overwrite=bool(config.get("replace_encoder")))
    if config.get("eval_limit") == 1:
        from engine.errors import ConfigError

        raise ConfigError("“STS pairs evaluated” must be 0 (all) or at least 2.")


def relation(runs: dict, where=None, style=None):
    return charts.align_uniform_figure(runs, measured_on=where("alignment") if where else None, style=style)


#: SimCSE's measures (engine.simcse: at each evaluation; the isotropy family on the evaluation sentences)
METRICS = [
    "loss",
    "sts_spearman",
    "alignment",
    "uniformity",
    "isoscore",
    "effective_rank",
    "average_cosine",
    "partition_isotropy",
    "probe_silhouette",
    "probe_isoscore",
    "probe_effective_rank",
    "probe_average_cosine",
    "probe_partition_isotropy",
]
DRAWN = [
    "loss",
    "sts_spearman",
    "alignment",
    "uniformity",
    "isoscore",
    "probe_silhouette",
    "probe_isoscore",
    charts.SPECTRUM,
]
experiment.run_panel(
    P,
    sidebar,
    METRICS,
    relation,
    "No SimCSE runs yet. Press ▶ Start in the sidebar, or the preset “SimCSE Figure 2”.",
    check=check,
    drawn=DRAWN,
    pair=("uniformity", "sts_spearman"),
)
