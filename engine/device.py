"""Device choice, mixed precision, synchronisation and seeding (CPU and CUDA)."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator

import numpy as np
import torch

from engine.errors import ConfigError


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """``auto`` → ``cuda`` when available, else ``cpu``; ``cuda``/``cuda:N``/``cpu``/``mps`` checked."""
    if isinstance(name, torch.device):
        return name
    name = (name or "auto").strip().lower()
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        return torch.device("cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise ConfigError(f"unknown device {name!r}: use auto, cpu or cuda[:N]") from err
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError(f"device {name!r} asked for but no CUDA GPU is available; use --device auto or cpu")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(f"device {name!r} does not exist: {torch.cuda.device_count()} GPU(s) visible")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError("device 'mps' asked for but it is not available")
    return device


def autocast(device: torch.device, enabled: bool = True) -> contextlib.AbstractContextManager:
    """Mixed precision on CUDA only (bf16 where supported, else fp16); a no-op on CPU.

    SimCSE's fp16 fails without CUDA (princeton-nlp/SimCSE#273): never autocast on CPU.
    """
    if not enabled or device.type != "cuda":
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast(device_type="cuda", dtype=dtype)


def needs_grad_scaler(device: torch.device, enabled: bool = True) -> bool:
    """fp16 autocast needs loss scaling; bf16 and CPU do not."""
    return enabled and device.type == "cuda" and not torch.cuda.is_bf16_supported()


def synchronize(device: torch.device | str) -> None:
    """Wait for queued kernels so that wall-clock timings are true (no-op on CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def timed(device: torch.device | str) -> Iterator[list[float]]:
    """Context manager measuring synchronised wall time; yields a one-item list filled on exit."""
    out = [0.0]
    synchronize(device)
    start = time.perf_counter()
    try:
        yield out
    finally:
        synchronize(device)
        out[0] = time.perf_counter() - start


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch (all devices); return a CPU generator seeded the same."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)
