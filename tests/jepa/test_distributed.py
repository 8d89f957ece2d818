"""Two processes (torchrun, gloo, CPU) train a JEPA run like one process on the same global batch: the EMA
target, and the VICReg regulariser computed on the all-gathered embeddings (back-propagated × N). Without a
predictor (its batch normalisation sees each rank's share)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.runlog import read_json, read_metrics

REPO = Path(__file__).resolve().parents[2]


def _args(tiny_dir: Path, out: Path) -> list[str]:
    flags = (
        "--train demo --eval demo-pairs --eval-limit 20 --eval-every 2 --steps 4 --batch-size 8 --dropout 0"
    )
    flags += " --lr 1e-3 --device cpu --precision fp32 --ema 0.99 --no-predictor --regulariser vicreg"
    return ["jepa", "--encoder", str(tiny_dir), *flags.split(), "--out", str(out)]


@pytest.mark.slow
def test_two_gloo_processes_match_one_process(tiny_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "EMBEDLAB_NO_PROGRESS": "1", "PYTHONPATH": str(REPO)}
    env.pop("WORLD_SIZE", None)
    single, double = tmp_path / "single", tmp_path / "double"
    one = subprocess.run(
        [sys.executable, "-m", "engine", *_args(tiny_dir, single)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=570,
    )
    assert one.returncode == 0, one.stderr[-2000:]
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    two = subprocess.run(
        [*launch, "-m", "engine", *_args(tiny_dir, double)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=570,
    )
    assert two.returncode == 0, two.stderr[-3000:]
    a, b = read_metrics(single), read_metrics(double)
    assert list(a["step"]) == list(b["step"]) == list(range(5))
    np.testing.assert_allclose(b["loss"].to_numpy()[1:], a["loss"].to_numpy()[1:], rtol=1e-4)
    np.testing.assert_allclose(b["effective_rank"].dropna(), a["effective_rank"].dropna(), rtol=1e-4)
    assert read_json(double / "status.json")["state"] == "finished"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["double", "single"]  # rank 1 wrote nothing
