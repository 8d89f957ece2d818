"""A tiny random BERT with the bundled encoder's tokenizer, saved in Hugging Face's format: the encoder that
the tests (``tiny_dir`` in tests/conftest.py and tests/encoders/conftest.py) and ``benchmarks/bench_step.py``
train and load in seconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def save_tiny_bert(
    folder: Path, tokenizer: Any, *, hidden: int, heads: int, intermediate: int, positions: int, seed: int = 0
) -> Path:
    """A 2-layer BERT of width ``hidden`` (random weights, seeded) and ``tokenizer``, saved to ``folder``."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        num_hidden_layers=2,
        num_attention_heads=heads,
        intermediate_size=intermediate,
        max_position_embeddings=positions,
    )
    BertModel(config).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
