"""Two processes (torchrun, gloo, CPU) train exactly like one process on the same global batch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.errors import ConfigError
from engine.runlog import read_json, read_metrics
from engine.simcse.distributed import World, any_rank, gather_with_grad, launched_by_torchrun, local_slice

REPO = Path(__file__).resolve().parents[2]


def test_local_slices_tile_the_global_batch() -> None:
    slices = [local_slice(8, World(rank=r, size=4)) for r in range(4)]
    assert [(s.start, s.stop) for s in slices] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    with pytest.raises(ConfigError, match="divisible"):
        local_slice(9, World(rank=0, size=2))


def test_single_process_helpers_are_identities() -> None:
    z = torch.randn(3, 4, requires_grad=True)
    assert gather_with_grad(z, World()) is z
    assert any_rank(True, World(), torch.device("cpu")) and not any_rank(False, World(), torch.device("cpu"))
    assert not launched_by_torchrun() or int(os.environ["WORLD_SIZE"]) > 1


def _args(tiny_dir: Path, out: Path) -> list[str]:
    return [
        "simcse",
        "--encoder",
        str(tiny_dir),
        "--train",
        "demo",
        "--eval",
        "demo-pairs",
        "--eval-limit",
        "20",
        "--eval-every",
        "2",
        "--steps",
        "4",
        "--batch-size",
        "8",
        "--dropout",
        "0",
        "--lr",
        "1e-3",
        "--device",
        "cpu",
        "--precision",
        "fp32",
        "--out",
        str(out),
    ]  # float32: the sums must match to 1e-4


@pytest.mark.slow
def test_two_gloo_processes_match_one_process(tiny_dir: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "EMBEDLAB_NO_PROGRESS": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
    }
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
    two = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node=2",
            "-m",
            "engine",
            *_args(tiny_dir, double),
        ],
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
    np.testing.assert_allclose(b["sts_spearman"].dropna(), a["sts_spearman"].dropna(), atol=1e-4)
    assert read_json(double / "status.json")["state"] == "finished"
    # rank 1 wrote nothing (cache/: the test's own cache, where rank 0's summary caches the STS baseline)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["double", "single"]
    assert b["loss"].iloc[-1] < b["loss"].iloc[1] + 1.0
