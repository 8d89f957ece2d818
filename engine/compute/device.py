"""Device choice, mixed precision, synchronisation and seeding (CPU and CUDA)."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator

import numpy as np
import torch

from engine.core import shared_knobs
from engine.core.errors import ConfigError


def resolve_device(name: str | torch.device = "auto") -> torch.device:
    """``auto`` → ``cuda`` when available, else Apple's ``mps``, else ``cpu``; named devices are checked."""
    if isinstance(name, torch.device):
        return name
    name = (name or "auto").strip().lower()
    if name == "auto":
        return _best_available()
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise ConfigError(f"unknown device {name!r}: use auto, cpu, mps or cuda[:N]") from err
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ConfigError(
                f"device {name!r} asked for but no CUDA GPU is available; use --device auto or cpu"
            )
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(f"device {name!r} does not exist: {torch.cuda.device_count()} GPU(s) visible")
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError("device 'mps' asked for but it is not available")
    return device


def _best_available() -> torch.device:
    """CUDA first (the fastest where present), then Apple's Metal backend (MPS), then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


#: ``precision`` values: ``auto`` uses mixed precision where the hardware runs it natively, ``fp32`` never
#: (declared with the knob, :mod:`engine.core.shared_knobs`)
PRECISIONS = shared_knobs.PRECISIONS


def cpu_has_native_bf16() -> bool:
    """True when this CPU multiplies bfloat16 in hardware (AVX512-BF16 or AMX), so bf16 GEMMs beat float32.

    Without it oneDNN emulates bf16 and a bf16 step is slower than float32: such CPUs keep float32.
    """
    probes = [
        getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    ]
    if any(probe is not None for probe in probes):
        return any(bool(probe()) for probe in probes if probe is not None)
    try:  # older torch: the kernel's CPU flags
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            flags = next((line for line in info if line.startswith("flags")), "").split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def autocast_dtype(device: torch.device, precision: str = "auto") -> torch.dtype | None:
    """The autocast dtype of ``precision`` on ``device``; None means float32 (no autocast).

    - CUDA: bf16 where supported, else fp16 (with a grad scaler, see :func:`needs_grad_scaler`);
    - CPU: bf16 only on CPUs with native bf16 (:func:`cpu_has_native_bf16`), never fp16: SimCSE's fp16
      fails without CUDA (princeton-nlp/SimCSE#273);
    - ``precision="fp32"``, or any other device: None.
    """
    if precision not in PRECISIONS:
        raise ConfigError(f"unknown precision {precision!r}: use one of {', '.join(PRECISIONS)}")
    if precision == "fp32":
        return None
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device.type == "cpu" and cpu_has_native_bf16():
        return torch.bfloat16
    return None


def autocast(
    device: torch.device, enabled: bool = True, precision: str = "auto"
) -> contextlib.AbstractContextManager:
    """Mixed precision of :func:`autocast_dtype` (a no-op when that is None or ``enabled`` is false)."""
    dtype = autocast_dtype(device, precision) if enabled else None
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def precision_name(device: torch.device, precision: str = "auto") -> str:
    """What a run computes in, for summaries: ``float32``, ``bfloat16 autocast`` or ``float16 autocast``."""
    dtype = autocast_dtype(device, precision)
    return "float32" if dtype is None else f"{str(dtype).removeprefix('torch.')} autocast"


def needs_grad_scaler(device: torch.device, enabled: bool = True, precision: str = "auto") -> bool:
    """fp16 autocast needs loss scaling; bf16, float32 and CPU do not."""
    return enabled and autocast_dtype(device, precision) == torch.float16


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
