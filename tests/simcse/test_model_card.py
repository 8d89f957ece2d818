"""A saved encoder's model card says how it was made: training data, steps, batch, pooler, precision, the
evaluation set with its size, and the run that made it (its folder under cache/runs)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.encoders.store import made_by, render_card


def test_a_run_saves_an_encoder_whose_card_names_how_it_was_made(tiny_config, own_cache: Path) -> None:
    from engine.runlog.runner import run_experiment

    config = tiny_config(steps=2, eval_every=2, batch_size=8, eval_limit=24, save_encoder="carded")
    run_dir = own_cache / "runs" / "made-it"
    run_experiment("simcse", config, run_dir, name="the carded run")
    folder = own_cache / "encoders" / "carded"
    card = (folder / "README.md").read_text()
    assert "- Training data: demo" in card, card
    assert "- Steps: 2" in card and "- Batch size: 8" in card
    assert "- Pooler: " in card and "- Pooler: —" not in card
    assert "- Precision: " in card and " on cpu" in card
    assert "- Evaluation set: demo-pairs (24 of " in card  # the set and how much of it
    assert "- Made by run: the carded run (`cache/runs/made-it`)" in card
    meta = json.loads((folder / "embedlab.json").read_text())["card"]
    assert meta["run"]["folder"] == "made-it" and str(own_cache) not in json.dumps(meta["run"]["folder"])


def test_the_card_says_unknown_for_what_an_old_card_lacks() -> None:
    card = render_card("old", {"card": {"data": "wiki1m", "steps": 5}, "pooling": "cls"})
    assert "- Training data: wiki1m" in card and "- Made by run: —" in card and "- Batch size: —" in card
    assert made_by({"folder": "x", "name": "x"}) == "`cache/runs/x`"
    assert made_by(None) == "—"


def test_the_card_names_the_start_a_run_came_from() -> None:
    from engine.simcse.train import started_from

    assert started_from("minilm-cls").startswith("minilm-cls: the bundled all-MiniLM-L6-v2 read at its [CLS]")
    assert started_from(None) == "the bundled all-MiniLM-L6-v2 at its own pooling"
    assert started_from("bert-base-uncased") == "bert-base-uncased"
    card = render_card(
        "from-cls", {"card": {"start": started_from("minilm-cls")}, "pooling": "cls_before_pooler"}
    )
    assert "- Started from: minilm-cls: the bundled all-MiniLM-L6-v2 read at its [CLS] token" in card
    assert "- Started from" not in render_card("old", {"card": {}, "pooling": "avg"})
