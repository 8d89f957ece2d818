"""Fixtures for the JEPA tests: the suite's tiny random BERT (tests/conftest.py) and a factory of fast JEPA
configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.simcse.conftest import _fresh_cache_per_test  # noqa: F401 - fixture reused


@pytest.fixture
def jepa_config(tiny_dir: Path):
    """A factory of fast JEPAConfig on the demo corpus with the tiny model on CPU, in float32."""
    from engine.jepa.config import JEPAConfig

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
            precision="fp32",
        )
        values.update(overrides)
        return JEPAConfig(**values)

    return make
