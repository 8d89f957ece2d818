"""Fixtures for the SimCSE tests: a tiny random BERT saved as an encoder folder, fast configs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache_per_test(own_cache: Path) -> Path:
    return own_cache


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random BERT (hidden 32, 2 layers, dropout 0.1) with the bundled tokenizer, in HF format."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from engine.encoders import bundled_path

    folder = tmp_path_factory.mktemp("tiny-bert")
    tokenizer = AutoTokenizer.from_pretrained(bundled_path(), trust_remote_code=False)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def tiny_config(tiny_dir: Path):
    """A factory of fast SimCSEConfig on the demo corpus with the tiny model on CPU."""
    from engine.simcse.train import SimCSEConfig

    def make(**overrides):
        values = dict(
            encoder=str(tiny_dir),
            train="demo",
            eval="demo-pairs",
            eval_limit=40,
            eval_every=5,
            steps=6,
            batch_size=8,
            lr=1e-3,
            device="cpu",
            data_dir=None,
        )
        values.update(overrides)
        return SimCSEConfig(**values)

    return make
