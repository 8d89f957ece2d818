"""Fixtures for the SimCSE tests: a tiny random BERT saved as an encoder folder, fast configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.training.fixtures import _fresh_cache_per_test, config_factory  # noqa: F401 - fixture reused


@pytest.fixture
def tiny_config(tiny_dir: Path):
    """A factory of fast SimCSEConfig on the demo corpus with the tiny model on CPU."""
    from engine.simcse.config import SimCSEConfig

    return config_factory(SimCSEConfig, tiny_dir)
