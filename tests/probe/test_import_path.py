"""The probe's command line and its benchmark import no front-end package (streamlit, plotly, umap): a GPU
machine without them runs ``python -m engine probe`` and ``benchmarks/bench_probe_split.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

BLOCKER = """
import importlib.abc, sys

class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"streamlit", "plotly", "umap"}:
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, Blocked())
"""

SCRIPT = """
import importlib.util, sys
sys.argv = ["engine", "probe", "--help"]
from engine import cli
cli.build_parser().parse_args(["probe", "--data", "demo", "--out", "x"])
import engine.probe.loop, engine.runlog.runner, engine.metrics, engine.probe.summary  # noqa: F401
spec = importlib.util.spec_from_file_location("bench", "benchmarks/bench_probe_split.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
print("imported:", sorted(m for m in sys.modules if m.split(".")[0] in {"streamlit", "plotly", "umap"}))
"""


def test_probe_cli_and_benchmark_import_without_front_end_packages() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER + SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "imported: []" in done.stdout
