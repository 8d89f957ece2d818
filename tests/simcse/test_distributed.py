"""Two processes (torchrun, gloo, CPU) train exactly like one process on the same global batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.runlog import read_json, read_metrics
from tests.training.twins import FLAGS, run_once_and_twice


@pytest.mark.slow
def test_two_gloo_processes_match_one_process(tiny_dir: Path, tmp_path: Path) -> None:
    single, double = run_once_and_twice(["simcse", "--encoder", str(tiny_dir), *FLAGS], tmp_path)
    a, b = read_metrics(single), read_metrics(double)
    assert list(a["step"]) == list(b["step"]) == list(range(5))
    np.testing.assert_allclose(b["loss"].to_numpy()[1:], a["loss"].to_numpy()[1:], rtol=1e-4)
    np.testing.assert_allclose(b["sts_spearman"].dropna(), a["sts_spearman"].dropna(), atol=1e-4)
    assert read_json(double / "status.json")["state"] == "finished"
    # rank 1 wrote nothing (cache/: the test's own cache, where rank 0's summary caches the STS baseline)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["double", "single"]
    assert b["loss"].iloc[-1] < b["loss"].iloc[1] + 1.0
