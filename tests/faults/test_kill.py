"""SIGKILL at random moments: the run folder stays whole up to the last completed step."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from waiting import wait_for

from engine import runlog
from engine.command.exits import engine_command
from engine.experiments import EXPERIMENTS
from engine.probe.measure import GEOMETRY

REPO = Path(__file__).resolve().parents[2]


def _start_probe(out: Path) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    args = engine_command(
        "probe",
        "--data",
        "demo",
        "--limit",
        "120",
        "--steps",
        "100000",
        "--snapshot-every",
        "3",
        "--snapshot-limit",
        "50",
        "--out",
        str(out),
    )
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for_rows(out: Path, process: subprocess.Popen, rows: int = 1) -> None:
    """Until ``rows`` whole rows are on disk (the kill then lands somewhere in a later step)."""
    tail = runlog.MetricsTail(out)

    def written() -> bool:
        if process.poll() is not None:
            detail = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"run ended early (exit {process.returncode}): {detail}")
        tail.read_new()
        return len(tail.rows) >= rows

    wait_for(written, 480, f"{rows} metrics rows")


@pytest.mark.parametrize("attempt", range(3))
def test_sigkill_leaves_whole_rows_config_and_interrupted_state(tmp_path: Path, attempt: int) -> None:
    out = tmp_path / f"killed-{attempt}"
    process = _start_probe(out)
    try:
        _wait_for_rows(out, process, rows=random.Random(attempt).randint(1, 8))
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    raw = (out / "metrics.csv").read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1].decode().splitlines()
    header = complete[0].split(",")
    assert header == list(EXPERIMENTS["probe"].columns)
    geometry = [header.index(column) for column in GEOMETRY]  # measured every 10th step only (the default)
    for line in complete[1:]:  # every complete line is a whole row
        cells = line.split(",")
        assert len(cells) == len(header), line
        assert all(cell for i, cell in enumerate(cells) if i not in geometry or int(cells[0]) % 10 == 0), line
    frame = runlog.read_metrics(out)
    assert len(frame) == len(complete) - 1 and frame["step"].tolist() == list(range(len(frame)))
    spectra = runlog.read_spectrum(out)  # written before its row: every geometry row has its spectrum
    assert spectra.eigenvalues.shape[1:] == (384,) and not pd.isna(spectra.eigenvalues).any()
    assert set(frame["step"][frame["step"] % 10 == 0]) <= set(spectra.steps.tolist())
    assert runlog.read_json(out / "config.json")["kind"] == "probe"
    assert runlog.load_run_info(out).state == "interrupted"
    for _, path in runlog.list_snapshots(out):  # snapshots are renamed into place: never half-written
        assert runlog.load_snapshot(path).shape == (50, 384)
    assert isinstance(pd.read_csv(out / "points.csv"), pd.DataFrame)


SERVER = """
import sys, threading
from engine.jobs import JobRegistry
registry = JobRegistry(sys.argv[1], project=False, warm=False)
job = registry.submit("probe", {"data": "demo", "limit": 120, "steps": 100000}, name="served")
print(job.run_dir, flush=True)
threading.Event().wait()  # serve until killed
"""


def test_sigkill_of_the_app_server_ends_its_run_cleanly_with_rows_kept(tmp_path: Path) -> None:
    """The server (here: a process holding the job registry) is SIGKILLed mid-run: its run's child notices
    that its parent is gone, ends after its step and records the end; every row written stays whole."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(tmp_path / "runs")],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        run_dir = Path(server.stdout.readline().strip())
        _wait_for_rows(run_dir, server, rows=random.Random(7).randint(1, 6))
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    info = wait_for(
        lambda: (found := runlog.load_run_info(run_dir)).state != "running" and found,
        what="the run's end after the server's death",
    )
    assert info.state in {"stopped", "interrupted"}, info.state
    child = Path(f"/proc/{runlog.read_json(run_dir / runlog.STATUS)['pid']}")
    wait_for(lambda: not child.exists(), what="the end of the run's process (it must not outlive the server)")
    frame = runlog.read_metrics(run_dir)
    assert len(frame) >= 1 and frame["step"].tolist() == list(range(len(frame)))
