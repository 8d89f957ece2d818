"""The probe on a CUDA GPU gives the rows it gives on the CPU (skipped without one).

Embeddings come from an ``.npz`` so no encoder is needed. CPU and GPU sum in different orders, and Adam's
first updates are about ``lr`` times the sign of each gradient, so a coordinate whose gradient is ~0 can move
either way: parameters may differ by up to ``lr`` per update on such coordinates. The logged measures,
averages over all items, are compared to 1e-3 (absolute); accuracy to one item in the set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from engine import probe
from engine.runlog.events import Row

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")

STEPS = 12
TOL = 1e-3


def clustered_npz(path: Path, multi_label: bool, items: int = 600, dim: int = 48, seed: int = 3) -> Path:
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, 4, size=items)
    centres = rng.normal(size=(4, dim)).astype(np.float32)
    x = (0.6 * centres[classes] + rng.normal(size=(items, dim))).astype(np.float32)
    if multi_label:
        y = np.zeros((items, 3), dtype=np.int64)
        y[np.arange(items), classes % 3] = 1
        y[:, 2] |= classes == 3
    else:
        y = classes
    np.savez(path, embeddings=x, labels=y)
    return path


def rows_on(device: str, data: Path, objective: str) -> list[Row]:
    config = probe.ProbeConfig(
        data=str(data),
        steps=STEPS,
        lr=1e-2,
        seed=5,
        device=device,
        objective=objective,
        geometry_every=3,
        snapshot_every=4,
    )
    return [event for event in probe.run_probe(config) if isinstance(event, Row)]


@pytest.mark.parametrize(
    ("multi_label", "objective"), [(False, "classifier"), (True, "classifier"), (False, "triplet")]
)
def test_cuda_rows_match_the_cpu(tmp_path: Path, multi_label: bool, objective: str) -> None:
    data = clustered_npz(tmp_path / "set.npz", multi_label)
    on_cpu, on_gpu = rows_on("cpu", data, objective), rows_on("cuda", data, objective)
    assert [r.step for r in on_gpu] == [r.step for r in on_cpu] == list(range(STEPS + 1))
    for cpu_row, gpu_row in zip(on_cpu, on_gpu, strict=True):
        assert sorted(gpu_row.values) == sorted(cpu_row.values)
        for column, expected in cpu_row.values.items():
            if column == "seconds":  # wall time
                continue
            if expected is None or isinstance(expected, str):
                assert gpu_row.values[column] == expected, column
            elif column == "accuracy":
                assert gpu_row.values[column] == pytest.approx(expected, abs=1.5 / 600), column
            else:
                assert gpu_row.values[column] == pytest.approx(expected, abs=TOL, rel=TOL), (
                    column,
                    cpu_row.step,
                )
        assert (gpu_row.snapshot is None) == (cpu_row.snapshot is None)
        if cpu_row.snapshot is not None:
            assert gpu_row.snapshot.dtype == cpu_row.snapshot.dtype
            np.testing.assert_allclose(gpu_row.snapshot, cpu_row.snapshot, atol=2e-2 * cpu_row.step + 1e-5)
        if cpu_row.spectrum is not None:
            np.testing.assert_allclose(
                gpu_row.spectrum, cpu_row.spectrum, rtol=TOL, atol=TOL * cpu_row.spectrum[0]
            )
