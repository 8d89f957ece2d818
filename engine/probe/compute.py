"""Where and how the probe computes: its device and its Adam.

Device (:func:`pick_device`): ``auto`` is CUDA when available, else Apple's MPS when available, else the
CPU; any other name goes through :func:`engine.compute.device.resolve_device` (which checks it). The metrics
run in float64 in places, which MPS lacks, so on MPS the loop hands the measured points to the CPU
(:func:`measure_device`).

Adam (:func:`make_adam`): PyTorch's ``torch.optim.Adam`` at the given learning rate and default betas/eps.
Its default (for-loop) implementation on an N x d parameter allocates two N x d temporaries in every step
(``exp_avg_sq.sqrt() / bias_correction2_sqrt``, before ``add_(eps)``) on top of the three N x d tensors it
keeps (gradient, first and second moments). From :data:`FUSED_MIN_ELEMENTS` parameters on, the fused kernel
is used: one pass, no temporaries, and ~15x faster on the CPU (measured, 400,000 x 384, one thread: 0.09 s
vs 1.45 s per step; peak RSS 2.8 vs 3.9 GiB). The fused update equals the default one up to float32 rounding
(~1e-6 after 40 steps at lr 1e-2); below the threshold (every paper-size set: 10,662 x 384 is 4.1 M) the
default implementation keeps the probe identical to a plain ``torch.optim.Adam`` loop
(``tests/probe/test_probe_reference.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import torch

from engine.compute.device import resolve_device

#: Parameters (elements of E) from which Adam runs fused: 2**24 = 16.8 M, 64 MiB of float32 (43,690 x 384).
FUSED_MIN_ELEMENTS = 1 << 24


def mps_available() -> bool:
    """True when PyTorch can use Apple's Metal GPU (MPS) here."""
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def pick_device(name: str | torch.device = "auto") -> torch.device:
    """``auto``: CUDA, else MPS, else CPU; anything else as :func:`engine.compute.device.resolve_device`
    checks it."""
    if isinstance(name, str) and (name or "auto").strip().lower() == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    return resolve_device(name)


def measure_device(device: torch.device) -> torch.device:
    """Where the measures run: the training device, except MPS (no float64 there): the CPU."""
    return torch.device("cpu") if device.type == "mps" else device


def fused_supported(device: torch.device) -> bool:
    try:
        from torch.utils._foreach_utils import _get_fused_kernels_supported_devices
    except ImportError:  # pragma: no cover - older torch
        return device.type == "cuda"
    return device.type in _get_fused_kernels_supported_devices()


def make_adam(params: Iterable[torch.nn.Parameter], lr: float, device: torch.device) -> torch.optim.Adam:
    """Adam (PyTorch defaults but ``lr``); fused from :data:`FUSED_MIN_ELEMENTS` parameters on."""
    params = [p for p in params if p.requires_grad]
    large = sum(p.numel() for p in params) >= FUSED_MIN_ELEMENTS
    if large and fused_supported(device) and all(p.dtype.is_floating_point for p in params):
        return torch.optim.Adam(params, lr=lr, fused=True)
    return torch.optim.Adam(params, lr=lr)


class RowTransfer:
    """Every value of one logged row moved to the host in one transfer: the 0-dim values (loss, accuracy,
    the measures), the deferred finiteness flags (``engine.metrics._inputs.check_finite_or_defer``), the
    spectrum and the snapshot are cast to float64 (exact for float32 values) and concatenated on ``where``
    (the measure device) into one flat tensor. On CUDA the copy goes to pinned memory without waiting
    (``non_blocking``) and :meth:`result` waits for its event: the loop can queue the next update first.
    Everywhere else the copy is done at once."""

    def __init__(
        self,
        values: dict[str, torch.Tensor | None],
        where: torch.device,
        checks: list | None = None,
        spectrum: torch.Tensor | None = None,
        snapshot: torch.Tensor | None = None,
    ) -> None:
        self.order = list(values)
        self.names = [name for name, value in values.items() if value is not None]
        self.checks = list(checks or ())
        self.spectrum_size = 0 if spectrum is None else spectrum.numel()
        self.snapshot_shape = None if snapshot is None else tuple(snapshot.shape)
        parts = [values[name].reshape(1) for name in self.names]  # type: ignore[union-attr]
        parts += [ok.reshape(1) for ok, _, _ in self.checks]
        parts += [t.reshape(-1) for t in (spectrum, snapshot) if t is not None]
        flat = torch.cat([part.to(where).to(torch.float64) for part in parts]) if parts else None
        self._event = None
        if flat is not None and flat.device.type == "cuda":
            self._host = flat.to("cpu", non_blocking=True)  # pinned: an asynchronous copy
            self._event = torch.cuda.Event()
            self._event.record(torch.cuda.current_stream(flat.device))
        else:
            self._host = None if flat is None else flat.cpu()

    def result(self) -> tuple[dict[str, float | None], np.ndarray | None, np.ndarray | None]:
        """(values by name, None where not measured; the spectrum, float64; the snapshot, float32) once the
        copy is done; raises the error of a failed finiteness check (``ConfigError``)."""
        from engine.metrics._inputs import raise_failed_checks

        if self._event is not None:
            self._event.synchronize()
        flat = np.empty(0) if self._host is None else self._host.numpy()
        count = len(self.names)
        got = dict(zip(self.names, flat[:count].tolist(), strict=True))
        values: dict[str, float | None] = {name: got.get(name) for name in self.order}
        flags = flat[count : count + len(self.checks)]
        raise_failed_checks(self.checks, [bool(flag) for flag in flags])
        start = count + len(self.checks)
        spectrum = flat[start : start + self.spectrum_size].copy() if self.spectrum_size else None
        start += self.spectrum_size
        snapshot = None
        if self.snapshot_shape is not None:
            snapshot = flat[start:].astype(np.float32).reshape(self.snapshot_shape)
        return values, spectrum, snapshot
