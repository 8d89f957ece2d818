"""Two processes (torchrun, gloo, CPU) train a JEPA run like one process on the same global batch: the EMA
target, and the VICReg regulariser computed on the all-gathered embeddings (back-propagated × N); and the
one-way loss (the context online, the sentence in the target copy). Without a predictor (its batch
normalisation sees each rank's share)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.runlog import read_json, read_metrics
from tests.training.twins import FLAGS, run_once_and_twice


@pytest.mark.slow
@pytest.mark.parametrize(
    "jepa",
    ["--ema 0.99 --no-predictor --regulariser vicreg", "--ema 0.99 --no-predictor --no-symmetric"],
    ids=["symmetric-vicreg", "one-way"],
)
def test_two_gloo_processes_match_one_process(tiny_dir: Path, tmp_path: Path, jepa: str) -> None:
    single, double = run_once_and_twice(["jepa", "--encoder", str(tiny_dir), *FLAGS, *jepa.split()], tmp_path)
    a, b = read_metrics(single), read_metrics(double)
    assert list(a["step"]) == list(b["step"]) == list(range(5))
    np.testing.assert_allclose(b["loss"].to_numpy()[1:], a["loss"].to_numpy()[1:], rtol=1e-4)
    np.testing.assert_allclose(b["rankme"].dropna(), a["rankme"].dropna(), rtol=1e-4)
    assert read_json(double / "status.json")["state"] == "finished"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["double", "single"]  # rank 1 wrote nothing
