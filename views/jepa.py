"""JEPA (non-contrastive): does predicting one view's embedding from another collapse? The switches that
decide it, and the collapse lens (RankMe, α-ReQ, per-dimension std) beside SimCSE's measures."""

from __future__ import annotations

import streamlit as st

from engine.jepa.entry import EXPERIMENT
from engine.training.presets import sts_evaluation
from ui import experiment, fields
from ui.controls import labelled_set_snapshots_device, sources, training_choice
from ui.text import readable_references


def sidebar() -> dict:
    """The run's settings: the training data, every knob from its declaration, the switches last."""
    sb = st.sidebar
    sb.header("JEPA settings")
    settings: dict = sources(EXPERIMENT)
    settings["train"] = training_choice(EXPERIMENT, False, settings["data_dir"], "train0")
    sb.caption(
        f"Evaluation (STS Spearman, alignment, uniformity, collapse lens): on {sts_evaluation(settings)}."
    )
    settings.update(fields.draw_all(EXPERIMENT, ["steps", "lr", "batch_size", "eval_every", "eval_limit"]))
    settings.update(labelled_set_snapshots_device(EXPERIMENT))
    settings.update(switches())
    return settings


def switches() -> dict:
    """The view and the loss's direction, then the three switches of the collapse question and the
    regulariser."""
    sb = st.sidebar
    sb.subheader("Views")
    settings: dict = {"view": fields.draw(EXPERIMENT, "view")}
    if settings["view"] in ("crop", "word-deletion"):
        settings["augment_rate"] = fields.draw(EXPERIMENT, "augment_rate")
    settings["dropout"] = fields.draw(EXPERIMENT, "dropout")
    settings["symmetric"] = fields.draw(EXPERIMENT, "symmetric")
    sb.subheader("Against collapse")
    settings["ema"] = fields.draw(EXPERIMENT, "ema")
    settings["target_dropout"] = fields.draw(EXPERIMENT, "target_dropout", disabled=settings["ema"] == 0)
    settings["predictor"] = fields.draw(EXPERIMENT, "predictor")
    settings["stop_grad"] = fields.draw(EXPERIMENT, "stop_grad", disabled=settings["ema"] > 0)
    if settings["ema"] > 0:
        sb.caption("With an EMA target no gradient reaches the target anyway: stop-gradient acts at EMA 0.")
    settings["regulariser"] = fields.draw(EXPERIMENT, "regulariser")
    sb.caption(
        readable_references(
            "No EMA, no predictor, no stop-gradient: the collapse case (SimSiam, Chen & He 2021). SIGReg "
            "(LeJEPA, arXiv 2511.08544) needs none of the three."
        )
    )
    return settings


experiment.experiment_page(EXPERIMENT, sidebar)
