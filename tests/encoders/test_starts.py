"""The [CLS] start (engine.encoders.starts): derived from the bundled encoder with no file of its own and no
hub, read at [CLS] (checked against plain transformers), trained with SimCSE's [CLS] + MLP, reserved as a
save name, and a start as anisotropic as the docs say (its average cosine above the bundled mean's)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.core.errors import ConfigError
from engine.encoders import bundled_path, load_encoder
from engine.encoders.loading import native_pooling, resolve_source
from engine.encoders.starts import MINILM_CLS, STARTS, start_named
from engine.encoders.store import check_save_name

TEXTS = [
    "A man is playing a guitar on the street.",
    "The stock market fell sharply on Monday.",
    "Two dogs run through the snow.",
    "The committee approved the new budget.",
    "She is slicing an onion in the kitchen.",
    "A child rides a bicycle down the hill.",
]


def test_the_start_is_found_by_its_name_in_any_case_and_reads_the_bundled_folder() -> None:
    for typed in ("minilm-cls", " MiniLM-CLS "):
        assert start_named(typed) is MINILM_CLS
    assert start_named("bundled") is None and start_named(None) is None and start_named(3) is None
    source = resolve_source("minilm-cls")
    assert source.kind == "start" and source.name == "minilm-cls"
    assert source.location == str(bundled_path()) and source.pooling == "cls_before_pooler"
    assert native_pooling("minilm-cls") == "cls_before_pooler" and native_pooling(None) == "avg"
    assert set(STARTS) == {"minilm-cls"}


def test_its_vectors_are_the_raw_cls_state_of_plain_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline (no hub), the start encodes each sentence as the bundled model's last-layer [CLS] state, as
    plain transformers computes it (the reference, to 1e-5)."""
    from transformers import AutoModel, AutoTokenizer

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    encoder = load_encoder("minilm-cls", device="cpu")
    assert encoder.pooling == "cls_before_pooler" and encoder.mlp is None and not encoder.normalize
    assert encoder.source == "start:minilm-cls"
    tokenizer = AutoTokenizer.from_pretrained(bundled_path(), local_files_only=True)
    model = AutoModel.from_pretrained(bundled_path(), local_files_only=True).eval()
    batch = tokenizer(TEXTS, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.no_grad():
        want = model(**batch).last_hidden_state[:, 0].numpy()
    np.testing.assert_allclose(encoder.encode(TEXTS), want, atol=1e-5)


def test_native_pooling_trains_it_as_the_paper_cls_with_an_mlp_in_training() -> None:
    from engine.simcse.config import SimCSEConfig
    from engine.training.encoder import build_encoder, resolve_pooler

    assert resolve_pooler("native", "minilm-cls") == "cls" and resolve_pooler("native", None) == "avg"
    encoder, use_mlp = build_encoder(SimCSEConfig(encoder="minilm-cls", train="demo"), torch.device("cpu"))
    assert use_mlp and encoder.mlp is not None and encoder.pooling == "cls_before_pooler"


def test_it_starts_more_anisotropic_than_the_bundled_mean() -> None:
    """The docs call the [CLS] start anisotropic: its mean pairwise cosine exceeds the bundled encoder's at
    its own mean pooling on the same sentences."""

    def average_cosine(vectors: np.ndarray) -> float:
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        sims = unit @ unit.T
        n = len(unit)
        return float((sims.sum() - n) / (n * (n - 1)))

    cls = average_cosine(load_encoder("minilm-cls", device="cpu").encode(TEXTS))
    mean = average_cosine(load_encoder(None, device="cpu").encode(TEXTS))
    assert cls > mean + 0.1, (cls, mean)


def test_its_name_cannot_be_taken_by_a_saved_encoder() -> None:
    with pytest.raises(ConfigError, match="reserved"):
        check_save_name("minilm-cls")
