"""Turning user inputs (numpy arrays, torch tensors on any device, lists) into checked torch tensors.

Shared by every metric module so that all accept the same inputs and raise the same one-line errors.
Nothing here copies data that is already a float32/float64 tensor or array.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import torch

from engine.core.errors import ConfigError

ArrayLike = Any  # np.ndarray | torch.Tensor | nested sequences of numbers


def as_matrix(x: ArrayLike, name: str = "X", *, check_finite: bool = True) -> torch.Tensor:
    """A 2-D float32/float64 tensor on the input's device (float16/bfloat16 -> float32, ints -> float64)."""
    t = _as_tensor(x, name)
    if t.ndim != 2:
        raise ConfigError(f"{name} must be a 2-D array (n_samples, dim); got shape {tuple(t.shape)}")
    t = _float(t)
    if check_finite:
        require_finite(t, name)
    return t


def require_finite(t: torch.Tensor, name: str = "X") -> None:
    """Raise a one-line ConfigError if ``t`` holds NaN or infinity.

    Silhouette and IsoScore skip this pass over X (it costs as much as their own set-up) and call it only
    when their result comes out non-finite, which a NaN/inf in X always causes.
    """
    if t.numel() and not bool(torch.isfinite(t).all()):
        raise ConfigError(f"{name} contains NaN or infinity")


#: Deferred finiteness checks (:func:`check_finite_or_defer`): (flag, the checked input, the message).
Checks = list[tuple[torch.Tensor, torch.Tensor, str]]


def check_finite_or_defer(ok: torch.Tensor, x: torch.Tensor, message: str, checks: Checks | None) -> None:
    """Raise ``message`` when the 0-dim boolean ``ok`` is false (first the NaN/inf message of ``x``, which
    is the usual cause). With ``checks`` (a list), nothing is read now: the flag is appended, and whoever
    moves the results to the host reads it then (:func:`raise_failed_checks`). On a GPU ``bool(ok)`` is a
    host sync; deferring it lets a whole set of measures run without one."""
    if checks is not None:
        checks.append((ok, x, message))
        return
    if not bool(ok):
        require_finite(x)
        raise ConfigError(message)


def raise_failed_checks(checks: Checks, passed: list[bool]) -> None:
    """The error of the first deferred check that failed (``passed``: the flags read on the host)."""
    for (_, x, message), ok in zip(checks, passed, strict=True):
        if not ok:
            require_finite(x)
            raise ConfigError(message)


def as_vector(x: ArrayLike, name: str, *, allow_nan: bool = False) -> torch.Tensor:
    """A 1-D float64 tensor on the input's device (``None`` entries of a list read as NaN)."""
    if isinstance(x, (list, tuple)):
        x = np.asarray([np.nan if v is None else v for v in x], dtype=np.float64)
    t = _as_tensor(x, name)
    if t.ndim != 1:
        raise ConfigError(f"{name} must be 1-D; got shape {tuple(t.shape)}")
    t = t.to(torch.float64)
    if not allow_nan and t.numel() and not bool(torch.isfinite(t).all()):
        raise ConfigError(f"{name} contains NaN or infinity")
    return t


def encode_labels(labels: ArrayLike, n: int, device: torch.device) -> tuple[torch.Tensor, int]:
    """Integer codes 0..k-1 (int64, on ``device``) and k for any hashable labels.

    1-D labels (ints, strings, tuples...) are clusters as given; a 2-D array/tensor (n, L) of label
    indicators (multi-label) is read row-wise: distinct label vectors are distinct clusters.
    """
    if isinstance(labels, torch.Tensor):
        lab = labels.detach()
        if lab.ndim not in (1, 2) or lab.shape[0] != n:
            raise ConfigError(f"labels must have one entry per row of X ({n}); got shape {tuple(lab.shape)}")
        if lab.is_floating_point() and not bool(torch.isfinite(lab).all()):
            raise ConfigError("labels contain NaN or infinity")
        uniq, codes = torch.unique(lab, dim=0 if lab.ndim == 2 else None, return_inverse=True)
        return codes.reshape(-1).to(device=device, dtype=torch.int64), int(uniq.shape[0])
    if isinstance(labels, np.ndarray) and labels.dtype != object and labels.ndim in (1, 2):
        if labels.shape[0] != n:
            raise ConfigError(f"labels must have one entry per row of X ({n}); got {labels.shape[0]}")
        if labels.dtype.kind == "f" and not np.isfinite(labels).all():
            raise ConfigError("labels contain NaN or infinity")
        uniq, codes = np.unique(labels, axis=0 if labels.ndim == 2 else None, return_inverse=True)
        return torch.from_numpy(codes.reshape(-1).astype(np.int64)).to(device), int(uniq.shape[0])
    return _encode_hashables(labels, n, device)


def _encode_hashables(labels: Sequence[Hashable], n: int, device: torch.device) -> tuple[torch.Tensor, int]:
    seq = list(labels)
    if len(seq) != n:
        raise ConfigError(f"labels must have one entry per row of X ({n}); got {len(seq)}")
    index: dict[Hashable, int] = {}
    codes = np.empty(n, dtype=np.int64)
    for i, value in enumerate(seq):
        key = _hashable(value)
        if isinstance(key, float) and key != key:
            raise ConfigError(f"label {i} is NaN")
        codes[i] = index.setdefault(key, len(index))
    return torch.from_numpy(codes).to(device), len(index)


def _hashable(value: Any) -> Hashable:
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    try:
        hash(value)
    except TypeError as err:
        raise ConfigError(f"label {value!r} is not hashable (use strings, numbers or tuples)") from err
    return value


def _as_tensor(x: ArrayLike, name: str) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach()
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"{name} is not a numeric array: {err}") from err
    if arr.dtype.kind not in "fiub":
        raise ConfigError(f"{name} must be numeric; got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float32)
    if not arr.flags.writeable:
        arr = arr.copy()
    return torch.from_numpy(np.ascontiguousarray(arr))


def _float(t: torch.Tensor) -> torch.Tensor:
    if t.dtype in (torch.float32, torch.float64):
        return t
    if t.is_floating_point():
        return t.to(torch.float32)
    return t.to(torch.float64)
