"""Two processes (torchrun, gloo, CPU) against one: the shared half of tests/simcse/test_distributed.py and
tests/jepa/test_distributed.py, which run an experiment of the training core both ways and compare."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: a few float32 steps on the demo corpus, evaluated every second step (the sums must match to 1e-4)
FLAGS = shlex.split(
    "--train demo --eval demo-pairs --eval-limit 20 --eval-every 2 --steps 4 --batch-size 8 --dropout 0"
    " --lr 1e-3 --device cpu --precision fp32"
)


def run_once_and_twice(args: list[str], tmp_path: Path) -> tuple[Path, Path]:
    """Run ``python -m engine *args --out single`` in one process and, at the same time (the two share
    nothing but the CPUs; most of each is starting Python and torch), under torchrun in two (gloo), each
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
    with contextlib.ExitStack() as stack:
        started = []
        for prefix, out, tail in (([sys.executable], single, 2000), (launch, double, 3000)):
            log = stack.enter_context(tempfile.TemporaryFile("w+"))  # not in tmp_path: tests list it
            command = [*prefix, "-m", "engine", *args, "--out", str(out)]
            process = subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
            stack.callback(_end, process)
            started.append((process, log, tail))
        for process, log, tail in started:
            code = process.wait(timeout=570)
            log.seek(0)
            assert code == 0, log.read()[-tail:]
    return single, double


def _end(process: subprocess.Popen) -> None:
    """Kill ``process`` if it still runs (a failed or timed-out twin leaves none behind)."""
    if process.poll() is None:
        process.kill()
        process.wait()
