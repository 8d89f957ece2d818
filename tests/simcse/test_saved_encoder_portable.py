"""A SimCSE run's saved encoder loads in sentence-transformers with the lab's vectors, for every pooler."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="sentence-transformers is a dev extra")

TEXTS = ["a cat sat on the mat", "two dogs play in the park near the river bank", "hello"]


@pytest.mark.parametrize("pooler", ["cls", "cls-mlp", "avg"])
def test_a_trained_encoder_is_the_same_in_sentence_transformers(
    tiny_config, own_cache: Path, tmp_path: Path, pooler: str
) -> None:
    from sentence_transformers import SentenceTransformer

    from engine.encoders import load_encoder
    from engine.simcse.train import train_simcse

    data_dir = tmp_path / "somewhere" / "data"
    data_dir.mkdir(parents=True)
    config = tiny_config(
        pooler=pooler, steps=2, eval_every=2, max_len=16, save_encoder=f"run-{pooler}", data_dir=str(data_dir)
    )
    list(train_simcse(config))
    folder = own_cache / "encoders" / f"run-{pooler}"
    lab = load_encoder(f"run-{pooler}", device="cpu")
    model = SentenceTransformer(str(folder), device="cpu", trust_remote_code=False)
    assert model.max_seq_length == lab.max_length == 16
    np.testing.assert_allclose(model.encode(TEXTS), lab.encode(TEXTS), atol=1e-5)
    card = (folder / "README.md").read_text() + (folder / "embedlab.json").read_text()
    assert str(tmp_path) not in card
    assert json.loads((folder / "embedlab.json").read_text())["card"]["config"]["data_dir"] == "data"
