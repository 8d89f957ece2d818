"""The embedding cache: hits are identical and free, keys depend on encoder and texts, corrupt files
recomputed."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from engine.core import paths
from engine.encoders import cache_key, encode_cached

TEXTS = ["first text", "second, somewhat longer text", "third"]


@pytest.fixture
def counted(variant, monkeypatch: pytest.MonkeyPatch):
    encoder = variant("avg", normalize=True)
    calls: list[int] = []
    real = encoder.encode

    def encode(texts, batch_size=64, progress=None):
        calls.append(len(texts))
        return real(texts, batch_size=batch_size, progress=progress)

    monkeypatch.setattr(encoder, "encode", encode)
    return encoder, calls


def test_hit_is_identical_and_not_recomputed(counted) -> None:
    encoder, calls = counted
    first = encode_cached(encoder, TEXTS)
    progress: list[tuple[int, int]] = []
    second = encode_cached(encoder, TEXTS, progress=lambda d, t: progress.append((d, t)))
    assert calls == [3] and np.array_equal(first, second) and second.dtype == np.float32
    assert progress == [(3, 3)]
    assert len(list(paths.embeddings_dir().glob("*.npy"))) == 1
    assert not list(paths.embeddings_dir().glob(".*"))  # no temp files left


def test_keys_depend_on_texts_order_and_settings(counted, variant) -> None:
    encoder, _ = counted
    key = cache_key(encoder, TEXTS)
    assert key == cache_key(variant("avg", normalize=True), TEXTS)
    assert key != cache_key(encoder, TEXTS[::-1])
    assert key != cache_key(encoder, TEXTS[:2])
    assert cache_key(encoder, ["a b", "c"]) != cache_key(encoder, ["a", "b c"])  # no ambiguous joins
    assert key != cache_key(variant("cls_before_pooler", normalize=True), TEXTS)
    assert key != cache_key(variant("avg", normalize=True, max_length=32), TEXTS)


@pytest.mark.parametrize("junk", [b"", b"not an npy file", "pickle"])
def test_corrupt_cache_file_is_recomputed(counted, caplog, junk) -> None:
    encoder, calls = counted
    want = encode_cached(encoder, TEXTS)
    path = paths.embeddings_dir() / f"{cache_key(encoder, TEXTS)}.npy"
    if junk == "pickle":
        np.save(path, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(junk)
    with caplog.at_level(logging.WARNING):
        got = encode_cached(encoder, TEXTS)
    assert calls == [3, 3] and np.allclose(got, want, atol=1e-6)
    assert "ignoring" in caplog.text
    assert np.load(path, allow_pickle=False).shape == (3, 384)  # rewritten whole


def test_wrong_shape_file_is_recomputed(counted) -> None:
    encoder, calls = counted
    encode_cached(encoder, TEXTS)
    np.save(paths.embeddings_dir() / f"{cache_key(encoder, TEXTS)}.npy", np.zeros((2, 5), np.float32))
    assert encode_cached(encoder, TEXTS).shape == (3, 384) and calls == [3, 3]


def test_a_miss_keeps_the_encoding_rate_and_the_estimate_reads_it(counted, monkeypatch) -> None:
    """A preset that encodes a real data set says how long it will take: the rate of the last miss on that
    device (a hit, or a handful of texts, keeps none), and that a second Start reuses the cache."""
    from engine.encoders import cache

    encoder, calls = counted
    assert cache.encoding_rate("cpu") is None
    assert "not yet timed on this machine's cpu" in cache.encoding_estimate(10662, "cpu")
    encode_cached(encoder, TEXTS)  # 3 texts: no rate worth keeping
    assert cache.encoding_rate("cpu") is None
    monkeypatch.setattr(cache, "RATE_MIN_TEXTS", 3)
    texts = [f"sentence number {i}" for i in range(4)]
    encode_cached(encoder, texts)
    rate = cache.encoding_rate("cpu")
    assert rate is not None and rate["texts"] == 4 and rate["texts_per_second"] > 0
    assert cache.encoding_rate("cuda") is None
    encode_cached(encoder, texts)  # a hit: encodes nothing, keeps the rate
    assert calls == [3, 4] and cache.encoding_rate("cpu") == rate
    words = cache.encoding_estimate(10662, "cpu")
    assert "it first encodes 10,662 texts: about " in words and "reuses the embedding cache" in words
    (paths.embeddings_dir() / cache.RATES).write_text("{not json")
    assert cache.encoding_rate("cpu") is None


def test_setup_i_says_how_long_its_encoding_takes_before_start(monkeypatch) -> None:
    from engine.encoders import cache
    from engine.lessons.presets import presets

    monkeypatch.setattr(
        cache, "encoding_rate", lambda device: {"texts_per_second": 20.0, "date": "2026-11-27"}
    )
    described = presets({"device": "cpu"})["Isotropy paper, setup (i)"].description
    assert "encodes 10,662 texts: about 9 min on this machine's cpu" in described
