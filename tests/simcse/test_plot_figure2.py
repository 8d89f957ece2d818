"""``scripts/plot_figure2.py``: SimCSE's Figure 2 drawn from run folders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "plot_figure2.py"


def _plot(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=REPO, capture_output=True, text=True, timeout=570
    )


def test_figure2_script_draws_a_png(tmp_path: Path) -> None:
    runs = []
    for k, name in enumerate(["a", "b"]):
        folder = tmp_path / name
        folder.mkdir()
        steps = np.arange(0, 30, 10)
        pd.DataFrame(
            {
                "step": steps,
                "loss": 1.0,
                "alignment": 0.2 + 0.01 * k * steps,
                "uniformity": -2 - 0.01 * steps,
                "sts_spearman": 0.8 - 0.001 * steps,
            }
        ).to_csv(folder / "metrics.csv", index=False)
        runs.append(str(folder))
    out = tmp_path / "fig.png"
    result = _plot(*runs, "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_folder_without_simcse_metrics_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "probe").mkdir()
    pd.DataFrame({"step": [0, 1], "loss": [1.0, 0.5]}).to_csv(tmp_path / "probe" / "metrics.csv", index=False)
    result = _plot(str(tmp_path / "probe"), "--out", str(tmp_path / "fig.png"))
    assert result.returncode != 0
    assert result.stderr.strip().startswith("error: ") and "no SimCSE metrics.csv" in result.stderr
    assert not (tmp_path / "fig.png").exists()
