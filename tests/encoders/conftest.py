"""Fixtures for the encoder tests: the bundled model loaded once, a tiny random BERT folder, a private
cache."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache_per_test(own_cache: Path) -> Path:
    return own_cache


@pytest.fixture(scope="session")
def bundled():
    """The bundled all-MiniLM-L6-v2, loaded once (tests must not train or re-pool it: use ``variant``)."""
    from engine.encoders import load_encoder

    return load_encoder(device="cpu")


@pytest.fixture
def variant(bundled):
    """A fresh Encoder sharing the bundled model and tokenizer, with another pooling/MLP/normalize."""
    from engine.encoders import Encoder

    def make(pooling: str = "avg", mlp=None, normalize: bool = False, max_length: int = 256) -> Encoder:
        return Encoder(
            name="variant",
            model=bundled.model,
            tokenizer=bundled.tokenizer,
            pooling=pooling,
            mlp=mlp,
            normalize=normalize,
            max_length=max_length,
            device="cpu",
            source=bundled.source,
        )

    return make


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory, bundled) -> Path:
    """A tiny random BERT (hidden 16, 2 layers) with the bundled tokenizer, saved in HF format."""
    from tiny_bert import save_tiny_bert

    folder = tmp_path_factory.mktemp("tiny-bert")
    return save_tiny_bert(folder, bundled.tokenizer, hidden=16, heads=2, intermediate=32, positions=64)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The encoders :func:`engine.encoders.known.encode_by_name` loads, by name (the real loader, counted)."""
    from engine.encoders import known

    seen: list[str] = []
    real = known.load_encoder

    def counted(name, **kwargs):
        seen.append(str(name))
        return real(name, **kwargs)

    monkeypatch.setattr(known, "load_encoder", counted)
    return seen
