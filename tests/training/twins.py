"""Two processes (torchrun, gloo, CPU) against one: the shared half of tests/simcse/test_distributed.py and
tests/jepa/test_distributed.py, which run an experiment of the training core both ways and compare."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: a few float32 steps on the demo corpus, evaluated every second step (the sums must match to 1e-4)
FLAGS = shlex.split(
    "--train demo --eval demo-pairs --eval-limit 20 --eval-every 2 --steps 4 --batch-size 8 --dropout 0"
    " --lr 1e-3 --device cpu --precision fp32"
)


def run_once_and_twice(args: list[str], tmp_path: Path) -> tuple[Path, Path]:
    """Run ``python -m engine *args --out single`` in one process, then under torchrun in two (gloo), each
    checked for exit 0; their run folders ``(single, double)`` under ``tmp_path``."""
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "EMBEDLAB_NO_PROGRESS": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
    }
    env.pop("WORLD_SIZE", None)
    single, double = tmp_path / "single", tmp_path / "double"
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    for prefix, out, tail in (([sys.executable], single, 2000), (launch, double, 3000)):
        done = subprocess.run(
            [*prefix, "-m", "engine", *args, "--out", str(out)],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=570,
        )
        assert done.returncode == 0, done.stderr[-tail:]
    return single, double
