"""Shared by the conftests of the experiments trained by the core (SimCSE, JEPA): a fresh embedding cache per
test and a factory of fast configs on the demo corpus with the suite's tiny random BERT on CPU."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: a few steps on the demo corpus, evaluated on 40 demo pairs every 5 steps, on CPU
FAST = dict(
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


@pytest.fixture(autouse=True)
def _fresh_cache_per_test(own_cache: Path) -> Path:
    return own_cache


def config_factory(config_class: type, tiny_dir: Path, **fixed: Any) -> Callable[..., Any]:
    """``make(**overrides)``: a ``config_class`` with the tiny encoder, :data:`FAST`, ``fixed``, then the
    overrides."""

    def make(**overrides: Any) -> Any:
        return config_class(**{"encoder": str(tiny_dir), **FAST, **fixed, **overrides})

    return make
