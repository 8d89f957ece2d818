"""SimCSE training with its ablations as switches; alignment–uniformity plane as in the paper's Figure 2."""

from __future__ import annotations

import streamlit as st

from engine.simcse.config import SAME_MASK_DROPOUT
from engine.simcse.entry import EXPERIMENT
from engine.simcse.lesson import SAME_MASK, SAME_MASK_LINK
from engine.training.presets import sts_evaluation
from ui import experiment, fields
from ui.controls import encoder_dims, labelled_set_snapshots_device, sources, training_choice
from ui.live import capped_note
from ui.text import readable_references


def sidebar() -> dict:
    """The run's settings: the training data and the labelled set (page choices), every knob from its
    declaration, the ablations last with what each one does."""
    sb = st.sidebar
    sb.header("SimCSE settings")
    settings: dict = {"mode": fields.draw(EXPERIMENT, "mode")}
    supervised = settings["mode"] == "sup"
    settings.update(sources(EXPERIMENT))
    settings["train"] = training_choice(
        EXPERIMENT, supervised, settings["data_dir"], f"train{int(supervised)}"
    )
    sb.caption(f"Evaluation (STS Spearman, alignment, uniformity): on {sts_evaluation(settings)}.")
    settings.update(fields.draw_all(EXPERIMENT, ["steps", "lr", "batch_size", "eval_every", "eval_limit"]))
    dims = encoder_dims(settings["encoder"])
    if settings["eval_limit"] and dims and 2 * settings["eval_limit"] <= dims:
        sb.caption(
            capped_note(2 * settings["eval_limit"], dims, " on at most that many evaluation sentences")
        )
    settings.update(labelled_set_snapshots_device(EXPERIMENT))
    settings.update(fields.draw_all(EXPERIMENT, ["save_encoder", "replace_encoder"]))
    settings.update(ablations(supervised))
    return settings


def ablations(supervised: bool) -> dict:
    """The views: same mask, dropout p, and the supervised α or the positive's augmentation."""
    from engine.simcse.augmentations import VIEWS

    sb = st.sidebar
    sb.subheader("Ablations (views)")
    same = False
    if not supervised:
        same = fields.draw(EXPERIMENT, "same_mask")
        issue = "GitHub issue 36"
        sb.caption(
            SAME_MASK.replace(issue, f"[{issue}]({SAME_MASK_LINK})")
            if same
            else readable_references(VIEWS["same-mask"].explanation)
        )
    off = f"Off while “Same mask” is on: that ablation fixes the rate at {SAME_MASK_DROPOUT:g}."
    fixed = SAME_MASK_DROPOUT if same else None
    rate = fields.draw(EXPERIMENT, "dropout", disabled=same, help=off if same else None, fixed=fixed)
    settings: dict = {"dropout": rate}  # with the same mask the config fixes it at 0.1 (SimCSEConfig)
    if not same:
        sb.caption(readable_references(VIEWS["dropout"].explanation))
    if supervised:
        settings["hard_negative_weight"] = fields.draw(EXPERIMENT, "hard_negative_weight")
        sb.caption("log α is added to each anchor's own contradiction logit (paper Table 7: α = 1 is best).")
        return settings
    augment = fields.draw(EXPERIMENT, "augment")
    if augment != "none":
        sb.caption(readable_references(VIEWS[augment].explanation))
    if augment in ("crop", "word-deletion"):
        settings["augment_rate"] = fields.draw(EXPERIMENT, "augment_rate")
    settings["same_mask"], settings["augment"] = bool(same), augment
    return settings


def check(config: dict) -> None:
    """Before Start: the encoder's save name is free (or may be replaced) and usable (the knobs' ranges are
    their declarations' checks, the same mask's rate the config's rule)."""
    if config.get("save_encoder"):
        from engine.encoders.store import check_save_name

        check_save_name(config["save_encoder"], overwrite=bool(config.get("replace_encoder")))


experiment.experiment_page(EXPERIMENT, sidebar, check=check)
