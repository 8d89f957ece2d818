"""engine.compute.device.resolve_device: the choice ``auto`` makes, by its logic, on any machine
(monkeypatched)."""

from __future__ import annotations

import pytest
import torch

from engine.compute.device import resolve_device
from engine.core.errors import ConfigError


def _machine(monkeypatch: pytest.MonkeyPatch, *, cuda: bool, mps: bool) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [
        (True, True, "cuda"),  # CUDA wins where both exist
        (True, False, "cuda"),
        (False, True, "mps"),  # an Apple machine
        (False, False, "cpu"),
    ],
)
def test_auto_prefers_cuda_then_mps_then_cpu(monkeypatch, cuda, mps, expected):
    _machine(monkeypatch, cuda=cuda, mps=mps)
    assert resolve_device("auto").type == expected
    assert resolve_device("").type == expected  # an empty field means auto


def test_named_devices_are_checked(monkeypatch):
    _machine(monkeypatch, cuda=False, mps=False)
    assert resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(ConfigError, match="no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ConfigError, match="'mps' asked for but it is not available"):
        resolve_device("mps")
    with pytest.raises(ConfigError, match="unknown device 'tpu'"):
        resolve_device("tpu")


def test_a_device_object_is_returned_as_given():
    device = torch.device("cpu")
    assert resolve_device(device) is device
