"""Fixtures for the SimCSE tests: a tiny random BERT saved as an encoder folder, fast configs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache_per_test(own_cache: Path) -> Path:
    return own_cache


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
