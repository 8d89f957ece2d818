"""The torchrun / DDP helpers in one process (engine.training.distributed); two gloo processes against one:
tests/simcse/test_distributed.py, tests/jepa/test_distributed.py."""

from __future__ import annotations

import os

import pytest
import torch
from torch import nn

from engine.core import settings
from engine.core.errors import ConfigError
from engine.training.distributed import (
    World,
    any_rank,
    gather_with_grad,
    local_slice,
    unwrapped,
    wrap,
)


def test_local_slices_tile_the_global_batch() -> None:
    slices = [local_slice(8, World(rank=r, size=4)) for r in range(4)]
    assert [(s.start, s.stop) for s in slices] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    with pytest.raises(ConfigError, match="divisible"):
        local_slice(9, World(rank=0, size=2))


def test_single_process_helpers_are_identities() -> None:
    z = torch.randn(3, 4, requires_grad=True)
    assert gather_with_grad(z, World()) is z
    assert any_rank(True, World(), torch.device("cpu")) and not any_rank(False, World(), torch.device("cpu"))
    assert not settings.torchrun_launch() or int(os.environ["WORLD_SIZE"]) > 1


def test_one_process_leaves_the_module_unwrapped() -> None:
    module = nn.Linear(2, 2)
    assert wrap(module, World(), torch.device("cpu")) is module and unwrapped(module) is module
