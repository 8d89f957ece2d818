"""Fixtures for the JEPA tests: the suite's tiny random BERT (tests/conftest.py) and a factory of fast JEPA
configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.training.fixtures import _fresh_cache_per_test, config_factory  # noqa: F401 - fixture reused


@pytest.fixture
def jepa_config(tiny_dir: Path):
    """A factory of fast JEPAConfig on the demo corpus with the tiny model on CPU, in float32."""
    from engine.jepa.config import JEPAConfig

    return config_factory(JEPAConfig, tiny_dir, precision="fp32")
