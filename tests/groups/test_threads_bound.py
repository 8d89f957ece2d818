"""``--threads`` is bounded by the machine (issue 47, minor): 100000 died with MemoryError after the run
folder was made (a segfault, exit 139, elsewhere); now one line, exit 2, before any folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine import cli
from engine.command.threads import THREADS_PER_CPU


@pytest.mark.parametrize("threads", ["0", "-1", "100000", str(THREADS_PER_CPU * (os.cpu_count() or 1) + 1)])
def test_threads_out_of_bounds_is_one_line_before_any_folder(tmp_path: Path, capsys, threads: str) -> None:
    out = tmp_path / "run"
    assert cli.main(["probe", "--data", "demo", "--steps", "1", "--threads", threads, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --threads must be between 1 and ")
    assert not out.exists()
