"""The Encoder on the bundled model: equality with sentence-transformers, poolers, order, progress, modes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.core.errors import ConfigError, DataError, EncoderError
from engine.encoders import POOLERS, bundled_path, make_mlp

TEXTS = [
    "The cat sat on the mat.",
    "A considerably longer sentence about football, the weather and the price of bread in town.",
    "",
    "Stocks fell sharply.",
    "Rain again, of course.",
]


def test_bundled_matches_sentence_transformers(bundled) -> None:
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(str(bundled_path()), device="cpu").encode(TEXTS, convert_to_numpy=True)
    ours = bundled.encode(TEXTS)
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), 384)
    assert np.abs(ours - reference).max() < 1e-5
    assert bundled.pooling == "avg" and bundled.normalize and bundled.max_length == 256
    assert bundled.mlp is None and bundled.hidden_size == 384


@pytest.mark.parametrize("pooling", list(POOLERS))
def test_each_pooler_on_the_model(variant, pooling: str) -> None:
    encoder = variant(pooling)
    got = encoder.encode(TEXTS[:3])
    assert got.shape == (3, 384) and np.isfinite(got).all()
    batch = encoder.tokenize(TEXTS[:3])
    with torch.no_grad():
        out = encoder.model(**batch, output_hidden_states=True)
    mask = batch["attention_mask"].unsqueeze(-1).float()
    mean = lambda h: (h * mask).sum(1) / mask.sum(1)  # noqa: E731
    want = {
        "cls": out.pooler_output,  # no MLP of ours: the model's own pooler (dense + tanh)
        "cls_before_pooler": out.last_hidden_state[:, 0],
        "avg": mean(out.last_hidden_state),
        "avg_first_last": mean((out.hidden_states[1] + out.hidden_states[-1]) / 2),
        "avg_top2": mean((out.hidden_states[-2] + out.hidden_states[-1]) / 2),
    }[pooling]
    assert np.allclose(got, want.numpy(), atol=1e-5)


def test_cls_uses_our_mlp_when_present(variant) -> None:
    mlp = make_mlp(384)
    encoder = variant("cls", mlp=mlp)
    raw = variant("cls_before_pooler", mlp=mlp).encode(TEXTS[:2])  # MLP present but not kept
    with torch.no_grad():
        want = mlp(torch.from_numpy(raw)).numpy()
    assert np.allclose(encoder.encode(TEXTS[:2]), want, atol=1e-5)


def test_normalize_gives_unit_rows(variant) -> None:
    got = variant("cls_before_pooler", normalize=True).encode(TEXTS)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_order_restored_after_length_sorting(bundled) -> None:
    together = bundled.encode(TEXTS, batch_size=2)
    alone = np.stack([bundled.encode([t])[0] for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)
    perm = [3, 0, 4, 2, 1]
    assert np.allclose(bundled.encode([TEXTS[i] for i in perm], batch_size=2), together[perm], atol=1e-5)


def test_progress_callback(bundled) -> None:
    calls: list[tuple[int, int]] = []
    bundled.encode(TEXTS, batch_size=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(2, 5), (4, 5), (5, 5)]


def test_empty_and_bad_texts(bundled) -> None:
    assert bundled.encode([]).shape == (0, 384)
    assert bundled.encode("one text").shape == (1, 384)
    with pytest.raises(DataError, match="text #1"):
        bundled.encode(["fine", None])
    with pytest.raises(ConfigError):
        bundled.encode(["a"], batch_size=0)


def test_encode_restores_training_mode_and_forward_keeps_grad(variant) -> None:
    encoder = variant("cls_before_pooler", mlp=make_mlp(384))
    encoder.train()
    try:
        encoder.encode(["a b c"])
        assert encoder.model.training and encoder.mlp.training
        batch = encoder.tokenize(["a b c", "d e"])
        out = encoder.forward(batch, use_mlp=True)
        assert out.shape == (2, 384) and out.requires_grad
        out.sum().backward()
        assert encoder.mlp[0].weight.grad is not None
    finally:
        encoder.eval()
        encoder.model.zero_grad(set_to_none=True)


def test_cls_without_any_mlp_is_a_clear_error(variant) -> None:
    encoder = variant("cls")
    batch = encoder.tokenize(["x"])
    out = type("Out", (), {"last_hidden_state": torch.zeros(1, 3, 384), "pooler_output": None})()
    with pytest.raises(EncoderError, match="cls_before_pooler"):
        encoder.pool(out, batch["attention_mask"], use_mlp=True)


def test_truncation_at_max_length(variant) -> None:
    encoder = variant("avg", max_length=8)
    long = " ".join(["word"] * 50)
    assert encoder.tokenize([long])["input_ids"].shape[1] == 8
    assert encoder.tokenize([long], max_length=5)["input_ids"].shape[1] == 5
    assert np.allclose(encoder.encode([long]), encoder.encode([" ".join(["word"] * 6)]), atol=1e-5)


def test_fingerprint_is_stable_and_tracks_settings_and_weights(bundled, variant) -> None:
    base = variant("avg")
    assert base.fingerprint == variant("avg").fingerprint
    assert base.fingerprint != variant("cls").fingerprint
    assert base.fingerprint != variant("avg", max_length=64).fingerprint
    assert base.fingerprint != variant("avg", normalize=True).fingerprint
    assert base.fingerprint != variant("avg", mlp=make_mlp(384)).fingerprint
    before = base.fingerprint
    weight = bundled.model.encoder.layer[0].output.dense.bias
    original = weight.detach().clone()
    with torch.no_grad():
        weight.add_(1e-3)
    try:
        assert base.fingerprint != before
    finally:
        with torch.no_grad():
            weight.copy_(original)
    assert base.fingerprint == before


def test_pretokenized_texts_encode_like_encode(bundled) -> None:
    tokenized = bundled.pretokenize(TEXTS, batch_size=2)
    assert tokenized.count == len(TEXTS) and len(tokenized.batches) == 3
    widths = [batch["input_ids"].shape[1] for _, batch in tokenized.batches]
    assert widths == sorted(
        widths, reverse=True
    )  # sorted by token count, each batch padded to its own longest
    assert sorted(int(i) for idx, _ in tokenized.batches for i in idx) == list(range(len(TEXTS)))
    assert np.abs(bundled.encode_tokenized(tokenized) - bundled.encode(TEXTS)).max() < 1e-5
    assert bundled.encode_tokenized(tokenized, should_stop=lambda: True) is None
    empty = bundled.pretokenize([])
    assert empty.count == 0 and bundled.encode_tokenized(empty).shape == (0, 384)
    with pytest.raises(ConfigError):
        bundled.pretokenize(TEXTS, batch_size=0)


def test_encode_tokenized_restores_training_mode(variant) -> None:
    encoder = variant("cls_before_pooler", mlp=make_mlp(384))
    tokenized = encoder.pretokenize(TEXTS[:2])
    encoder.train()
    try:
        encoder.encode_tokenized(tokenized)
        assert encoder.model.training and encoder.mlp.training
    finally:
        encoder.eval()
