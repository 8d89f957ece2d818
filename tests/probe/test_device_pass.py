"""The probe's measures in one device pass (engine.probe.measure.measure_tensors with deferred checks) and
its one host transfer per row (engine.probe.compute.RowTransfer): the same values as the functions that
tests/metrics compare with their references, exact round trips, and the deferred NaN check still raising.

Tolerances: 1e-12 between the deferred and the direct pass in float64 (the same kernels; the uniformity's
weighted block sums differ from the plain sums by rounding only), 1e-6 in float32."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.metrics import f1_score

from engine.core.errors import ConfigError
from engine.probe.compute import RowTransfer
from engine.probe.config import ProbeConfig
from engine.probe.measure import COLUMNS, encode_clusters, measure, measure_tensors
from engine.probe.model import micro_f1, micro_f1_tensor

pytestmark = pytest.mark.filterwarnings("ignore::engine.metrics.FewSamplesWarning")


def _points(seed: int, dtype: torch.dtype, zero_row: bool) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, 300)
    x = rng.normal(size=(300, 24)) + 2.0 * labels[:, None] * (rng.random(24) > 0.5)
    if zero_row:
        x[7] = 0.0
    return torch.from_numpy(x).to(dtype), torch.from_numpy(labels)


@pytest.mark.parametrize("step", [0, 1])  # a geometry step (0) and a plain one
@pytest.mark.parametrize(("dtype", "tol"), [(torch.float64, 1e-12), (torch.float32, 1e-6)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deferred_pass_equals_the_direct_measures(
    step: int, dtype: torch.dtype, tol: float, seed: int
) -> None:
    points, labels = _points(seed, dtype, zero_row=seed == 2)
    config = ProbeConfig(steps=10, geometry_every=5)
    direct = measure(points, labels, config, None, step)
    found = measure_tensors(points, encode_clusters(labels), config, None, step, defer=True)
    transfer = RowTransfer(found.values, points.device, found.checks, found.spectrum)
    values, spectrum, snapshot = transfer.result()
    assert found.checks and snapshot is None
    for column in COLUMNS:
        if direct.values[column] is None:
            assert values[column] is None, column
        else:
            assert values[column] == pytest.approx(direct.values[column], rel=0, abs=tol), column
    if step == 0:
        np.testing.assert_allclose(spectrum, direct.spectrum, rtol=1e-12, atol=0)


def test_a_nan_found_by_a_deferred_check_raises_when_the_row_is_read() -> None:
    points, labels = _points(0, torch.float32, zero_row=False)
    points[3, 2] = float("nan")
    found = measure_tensors(points, encode_clusters(labels), ProbeConfig(steps=10), None, 1, defer=True)
    transfer = RowTransfer(found.values, points.device, found.checks)  # nothing raised so far
    with pytest.raises(ConfigError, match="NaN or infinity"):
        transfer.result()


def test_one_transfer_returns_every_value_exactly() -> None:
    rng = np.random.default_rng(4)
    snapshot = torch.from_numpy(rng.normal(size=(50, 8)).astype(np.float32))
    spectrum = torch.from_numpy(np.sort(rng.random(8))[::-1].copy())
    loss = torch.tensor(0.123456789, dtype=torch.float32)
    values = {"loss": loss, "micro_f1": None, "b": torch.tensor(2.5)}
    got, spec, snap = RowTransfer(values, torch.device("cpu"), [], spectrum, snapshot).result()
    assert list(got) == ["loss", "micro_f1", "b"]
    assert got == {"loss": float(values["loss"]), "micro_f1": None, "b": 2.5}
    np.testing.assert_array_equal(spec, spectrum.numpy())
    assert snap.dtype == np.float32
    np.testing.assert_array_equal(snap, snapshot.numpy())


@pytest.mark.parametrize("seed", range(4))
def test_micro_f1_tensor_is_scikit_learns(seed: int) -> None:
    rng = np.random.default_rng(seed)
    logits = torch.from_numpy(rng.normal(size=(40, 5)) - (seed == 3) * 50.0)  # seed 3: nothing predicted
    targets = torch.from_numpy((rng.random((40, 5)) < 0.3 * (seed != 3)).astype(np.float32))
    expected = f1_score(targets.numpy() > 0.5, logits.numpy() > 0, average="micro", zero_division=0.0)
    assert float(micro_f1_tensor(logits, targets, True)) == pytest.approx(expected, abs=1e-15)
    assert micro_f1(logits, targets, True) == pytest.approx(expected, abs=1e-15)
