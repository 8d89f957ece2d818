"""The local Ray a sweep starts, and the Ray it cannot join (issue 37, item 7): a local Ray starts without
the dashboard and is gone with the sweep, SIGTERM included (Ray's agents would otherwise outlive it); a
``ray://`` address that cannot be used is one line in the CLI's words, without a token hint."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import cli, groups
from engine.sweep import ray_run
from tests.waiting import wait_for

PROBES = ["probe", "--data", "demo", "--limit", "60", "--steps", "4", "--geometry-every", "2"]
CLIENT_LINE = (
    'error: --address {address}: a ray:// address needs Ray Client (pip install "ray[client]"); or join the '
    "head by its host:port (e.g. --address 10.0.0.5:6379)"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray Client's gRPC dependency (the extra ``ray[client]``) not installed."""
    real = ray_run.importlib.util.find_spec
    monkeypatch.setattr(
        ray_run.importlib.util, "find_spec", lambda name: None if name == "grpc" else real(name)
    )


def test_a_ray_client_address_without_its_extra_is_one_line(
    no_client: None, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    address = "ray://127.0.0.1:10001"
    args = ["sweep", *PROBES, "--seeds", "2", "--address", address, "--out", str(tmp_path / "g")]
    assert cli.main(args) == 2
    assert capsys.readouterr().err.strip() == CLIENT_LINE.format(address=address)
    assert not (tmp_path / "g").exists()


def test_a_ray_client_address_nobody_answers_is_one_line_without_a_token_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    real = ray_run.importlib.util.find_spec
    monkeypatch.setattr(
        ray_run.importlib.util, "find_spec", lambda name: True if name == "grpc" else real(name)
    )
    address = f"ray://127.0.0.1:{_free_port()}"
    args = ["sweep", *PROBES, "--seeds", "2", "--address", address, "--out", str(tmp_path / "g")]
    assert cli.main(args) == 2
    error = capsys.readouterr().err.strip()
    assert (
        error.startswith(f"error: --address {address}: no Ray Client server answers there (")
        and "\n" not in error
    )
    assert "token" not in error.lower() and "RAY_AUTH_MODE" not in error
    assert not (tmp_path / "g").exists()


def test_rays_authentication_advice_is_left_out_of_the_line() -> None:
    """Ray's AuthenticationError appends a paragraph on tokens to its message; the line keeps the reason."""
    exceptions = pytest.importorskip("ray.exceptions", reason="Ray is not installed")
    err = exceptions.AuthenticationError("Failed to authenticate with the GCS")
    assert "auth_token" in str(err)  # Ray's own advice, which the line leaves out
    line = ray_run.connect_error("ray://10.0.0.5:10001", err)
    reason = "AuthenticationError: Failed to authenticate with the GCS"
    assert line == f"--address ray://10.0.0.5:10001: cannot connect ({reason})"
    head = ray_run.connect_error("10.0.0.5:6379", err)
    assert head.endswith(ray_run.AUTH_HINT) and "auth_token" not in head and "docs.ray.io" not in head


def test_a_local_ray_starts_without_the_dashboard(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    seen: dict[str, Any] = {}
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **options: seen.update(options))
    monkeypatch.setattr(ray, "shutdown", lambda: seen.update(shut=True))
    executor = ray_run.RayExecutor(local_cpus=2)
    executor.connect()
    assert seen["include_dashboard"] is False and seen["num_cpus"] == 2 and "address" not in seen
    executor.close()
    assert seen["shut"] is True


def _session_processes(session: int) -> list[str]:
    """The live processes (not zombies) of the session ``session``: a sweep's Ray processes stay in it."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == session:  # state, ppid, pgrp, session
            found.append(f"{entry.name} {name}")
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_sigterm_ends_a_ray_sweep_and_its_local_ray(tmp_path: Path) -> None:
    """SIGTERM: the trials in progress are recorded stopped (retryable), the rest stay queued, the exit is
    130, and no process of the local Ray is left (Ray's dashboard and runtime-env agents included)."""
    pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[cluster]")')
    out = tmp_path / "g"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    command = [sys.executable, "-m", "engine", "sweep", "probe", "--data", "demo", "--limit", "40"]
    command += ["--steps", "100000", "--geometry-every", "0", "--seeds", "3", "--ray", "--ray-cpus", "2"]
    child = subprocess.Popen(
        [*command, "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its session id is its pid: every Ray process it starts stays in it
    )
    try:
        rows = out / "runs" / "seed-0" / "metrics.csv"
        wait_for(lambda: child.poll() is not None or (rows.is_file() and rows.read_text().count("\n") > 2))
        assert child.poll() is None, child.communicate()
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=120)
        assert child.returncode == 130, err
        wait_for(
            lambda: not _session_processes(child.pid),
            30,
            "the local Ray's processes to end",
            describe=lambda: "; ".join(_session_processes(child.pid)),
        )
    finally:
        if child.poll() is None:
            child.kill()
        for line in _session_processes(child.pid):
            os.kill(int(line.split()[0]), signal.SIGKILL)
    members = groups.read_group(out).members
    assert [m.status for m in members].count("queued") >= 1
    for member in members:
        if member.status == "failed":
            assert "stopped before it finished" in member.error
        assert member.status in ("failed", "queued")
