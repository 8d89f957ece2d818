"""The demo corpus's embeddings shipped with the package (:data:`engine.encoders.cache.PACKAGED`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from engine.encoders import cache, encode_cached, load_encoder

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "ship_demo_embeddings", REPO / "scripts" / "ship_demo_embeddings.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_file_is_the_bundled_encoders_demo_embeddings() -> None:
    """One file, named by the cache key of the bundled encoder on the demo's texts (else a first click
    encodes: rerun scripts/ship_demo_embeddings.py), equal to a fresh encoding to float rounding."""
    encoder = load_encoder()
    texts = _script().demo_texts()
    shipped = sorted(cache.PACKAGED.glob("*.npy"))
    assert [path.name for path in shipped] == [f"{cache.cache_key(encoder, texts)}.npy"], (
        "stale: run python scripts/ship_demo_embeddings.py"
    )
    array = np.load(shipped[0], allow_pickle=False)
    assert array.dtype == np.float32 and array.shape == (600, 384)
    np.testing.assert_allclose(array, encoder.encode(texts), rtol=0, atol=1e-5)


def test_a_miss_with_a_shipped_entry_copies_it_without_encoding(
    own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = load_encoder()
    texts = ["a first sentence", "a second one", "and a third"]
    shipped = np.arange(3 * 384, dtype=np.float32).reshape(3, 384) / 1000
    monkeypatch.setattr(cache, "PACKAGED", tmp_path)
    np.save(tmp_path / f"{cache.cache_key(encoder, texts)}.npy", shipped, allow_pickle=False)

    def no_encoding(*args, **kwargs):
        raise AssertionError("encoded although the package ships the entry")

    monkeypatch.setattr(encoder, "encode", no_encoding)
    np.testing.assert_array_equal(encode_cached(encoder, texts), shipped)
    assert (own_cache / "embeddings" / f"{cache.cache_key(encoder, texts)}.npy").is_file()  # now in the cache
    with pytest.raises(AssertionError, match="encoded although"):
        encode_cached(encoder, ["another text"])  # no shipped entry: encodes


def test_a_damaged_shipped_entry_is_ignored(
    own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = load_encoder()
    texts = ["one", "two"]
    monkeypatch.setattr(cache, "PACKAGED", tmp_path)
    (tmp_path / f"{cache.cache_key(encoder, texts)}.npy").write_bytes(b"not an array")
    np.testing.assert_allclose(encode_cached(encoder, texts), encoder.encode(texts), atol=1e-6)
