"""Sweeps on Ray (the ``cluster`` extra), on a local Ray of 2 CPUs: a 2 × 2 sweep of short probes gives the
same results as the same runs made one by one in this process, on two warm workers (one per CPU) that run
trial after trial; a failed Ray trial is recorded, a worker that dies fails its trial only (a fresh worker
takes the rest), and a missing Ray is one line.

Tolerance: every logged measure (and the summary's r and ρ) equal to 1e-9 absolute. Both sides run torch
on one thread (a Ray trial of one CPU; ``--threads 1`` locally) with the same seeds, so the arithmetic is
the same; in practice the values are bit-identical.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engine import cli, groups, runlog
from engine.core.errors import ConfigError
from tests.waiting import wait_for

PROBES = ["probe", "--data", "demo", "--limit", "60", "--steps", "4", "--geometry-every", "2"]
GRID = ["--grid", "lr=1e-3,1e-2", "--seeds", "2"]
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def local_ray() -> Iterator[object]:
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    from engine.sweep.ray_run import runtime_env

    ray.init(num_cpus=2, include_dashboard=False, runtime_env=runtime_env(), log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_a_2x2_sweep_on_ray_equals_the_runs_made_one_by_one(local_ray: object, tmp_path: Path) -> None:
    on_ray, one_by_one = tmp_path / "ray", tmp_path / "local"
    assert cli.main(["sweep", *PROBES, *GRID, "--ray", "--cpus-per-trial", "1", "--out", str(on_ray)]) == 0
    assert cli.main(["sweep", *PROBES, *GRID, "--threads", "1", "--out", str(one_by_one)]) == 0
    ray_group, local_group = groups.read_group(on_ray), groups.read_group(one_by_one)
    assert [m.id for m in ray_group.members] == [
        "lr-0.001_seed-0",
        "lr-0.001_seed-1",
        "lr-0.01_seed-0",
        "lr-0.01_seed-1",
    ]
    assert all(m.status == "done" and m.attempts == 1 for m in ray_group.members)
    workers = {
        json.loads((d / "status.json").read_text())["pid"] for d in groups.member_dirs(ray_group).values()
    }
    assert len(workers) == 2  # one warm worker per CPU ran trial after trial (not a process per trial)
    for member_id, ray_dir in groups.member_dirs(ray_group).items():
        local_dir = groups.member_dirs(local_group)[member_id]
        ray_rows, local_rows = runlog.read_metrics(ray_dir), runlog.read_metrics(local_dir)
        measured = [c for c in ray_rows.columns if c not in ("seconds",)]
        assert len(ray_rows) == 5 and ray_rows["step"].tolist() == local_rows["step"].tolist()
        np.testing.assert_allclose(
            ray_rows[measured].to_numpy(float), local_rows[measured].to_numpy(float), rtol=0, atol=TOLERANCE
        )
        ray_summary, local_summary = runlog.read_summary(ray_dir), runlog.read_summary(local_dir)
        for key in ("pearson_r", "spearman_rho", "isoscore_end", "silhouette_end"):
            assert ray_summary[key] == pytest.approx(local_summary[key], abs=TOLERANCE)
    ray_cells = groups.summarise(ray_group, write=False)["cells"]
    local_cells = groups.summarise(local_group, write=False)["cells"]
    assert [c["label"] for c in ray_cells] == ["lr=0.001", "lr=0.01"]
    for ray_cell, local_cell in zip(ray_cells, local_cells, strict=True):
        for key, figure in ray_cell["figures"].items():
            assert figure["n"] == 2
            assert figure["mean"] == pytest.approx(local_cell["figures"][key]["mean"], abs=TOLERANCE)


def test_a_failed_ray_trial_is_recorded_with_its_line(local_ray: object, tmp_path: Path) -> None:
    out = tmp_path / "g"
    missing = tmp_path / "missing.csv"  # empty: the trial fails on Ray (a missing file is refused up front)
    missing.write_text("", encoding="utf-8")
    args = ["sweep", *PROBES, "--grid", f"data=demo,{missing}", "--ray", "--out", str(out)]
    assert cli.main(args) == 1
    done, failed = groups.read_group(out).members
    assert done.status == "done" and failed.status == "failed"
    assert "missing.csv" in failed.error and "\n" not in failed.error


def test_without_ray_the_sweep_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    from engine.sweep.ray_run import require_ray

    with pytest.raises(ConfigError, match=r'^a sweep with --ray needs Ray: pip install -e "\.\[cluster\]"$'):
        require_ray()
    assert cli.main(["sweep", *PROBES, *GRID, "--ray", "--out", str(tmp_path / "g")]) == 2
    assert (
        capsys.readouterr().err.strip() == 'error: a sweep with --ray needs Ray: pip install -e ".[cluster]"'
    )
    assert not (tmp_path / "g").exists()


def test_an_address_nobody_answers_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["sweep", *PROBES, *GRID, "--address", f"127.0.0.1:{port}", "--out", str(tmp_path / "g")]
    assert cli.main(args) == 2
    error = capsys.readouterr().err.strip()
    assert (
        error.startswith(f"error: --address 127.0.0.1:{port}: no Ray head answers there")
        and "\n" not in error
    )
    assert not (tmp_path / "g").exists()


def test_workers_get_the_labs_variables_and_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.core import settings
    from engine.sweep.ray_run import runtime_env

    monkeypatch.setenv("EMBEDLAB_DATA_DIR", "/shared/data")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setenv("UNRELATED_SECRET", "x")
    env = runtime_env()["env_vars"]
    assert env["EMBEDLAB_DATA_DIR"] == "/shared/data" and env["EMBEDLAB_NO_PROGRESS"] == "1"
    assert env["PYTHONPATH"].split(":") == [str(settings.REPO_ROOT), "/elsewhere"]
    assert "UNRELATED_SECRET" not in env


@pytest.mark.parametrize(
    ("address", "hinted"),
    [
        ("10.0.0.5:6379", True),
        ("auto", True),
        ("ray://10.0.0.5:10001", False),
        ("RAY://x:1", False),
        (None, False),
    ],
)
def test_the_token_hint_comes_only_where_it_can_apply(address: str | None, hinted: bool) -> None:
    """A Ray Client address (``ray://``) and a local Ray have nothing to do with a head's token (issue 37)."""
    from engine.sweep.ray_run import AUTH_HINT, connect_error

    line = connect_error(address, ConnectionError("GCS did not answer"))
    assert line.startswith(f"--address {address}: cannot connect (" if address else "a local Ray: cannot")
    assert line.endswith(AUTH_HINT) is hinted and "\n" not in line


def test_a_worker_that_dies_fails_its_trial_only(local_ray: object, tmp_path: Path) -> None:
    """One worker (2 CPUs a trial on 2): its process killed during the long trial, that trial is failed with
    one line and a fresh worker runs the next one."""
    out = tmp_path / "g"
    args = [
        "sweep",
        *PROBES[:-2],
        "--grid",
        "steps=100000,3",
        "--ray",
        "--cpus-per-trial",
        "2",
        "--out",
        str(out),
    ]
    codes: list[int] = []
    sweep = threading.Thread(target=lambda: codes.append(cli.main(args)))
    sweep.start()
    try:
        status = out / "runs" / "steps-100000" / "status.json"
        pid = wait_for(
            lambda: status.is_file() and json.loads(status.read_text()).get("pid"), what="the trial"
        )
        os.kill(pid, signal.SIGKILL)
    finally:
        sweep.join(timeout=300)
    assert codes == [1]
    killed, short = groups.read_group(out).members
    assert (killed.status, killed.attempts) == ("failed", 1)
    assert killed.error.startswith("the Ray worker running it died: ") and "\n" not in killed.error
    assert (short.status, short.attempts, short.error) == ("done", 1, None)
