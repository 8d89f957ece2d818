"""A group has one runner (issue 37, item 1): the runner lock refuses a second runner in one line naming the
first's pid, ``pending`` leaves a live runner's ``running`` members alone, ``create_group`` is atomic, and the
lock goes when its holder does (however it ends)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine import cli, groups
from engine.command.exits import engine_command
from engine.groups.lock import RUNNER_LOCK

HOLD = """
import sys, time
from engine.groups.lock import holding
with holding(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def held_elsewhere(tmp_path: Path):
    """A group whose runner lock another live process holds; yields (group, that process)."""
    group = groups.create_group(tmp_path / "g", "probe", {"data": "demo", "steps": 2}, {"seed": [0, 1]})
    first = group.members[0]
    group = group.with_member(groups.Member(first.id, first.params, "running", None, 1))
    groups.write_group(group)
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(group.path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        yield group, child
    finally:
        child.kill()
        child.wait()


def test_a_second_runner_is_refused_naming_the_first(held_elsewhere, capsys: pytest.CaptureFixture) -> None:
    group, child = held_elsewhere
    assert groups.runner_alive(group.path)
    with pytest.raises(groups.GroupError, match=rf"is being run by another process \(pid {child.pid}\)"):
        groups.run_group(group, groups.LocalExecutor(threads=1, echo=False))
    assert groups.read_group(group.path) == group  # nothing was run or written
    assert cli.main(["sweep", "probe", "--retry-failed", "--out", str(group.path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(
        f"error: group {group.path.resolve()} is being run by another process (pid {child.pid})"
    )
    assert "\n" not in error
    assert cli.main(["sweep", "probe", "--data", "demo", "--seeds", "1", "--out", str(group.path)]) == 2
    assert f"(pid {child.pid})" in capsys.readouterr().err


def test_running_members_are_left_over_only_when_the_runner_is_dead(held_elsewhere) -> None:
    group, child = held_elsewhere
    assert [m.id for m in groups.pending(group)] == [group.members[1].id]  # the live runner's is not ours
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert not groups.runner_alive(group.path)  # the kernel dropped the lock: its file alone is no owner
    assert [m.id for m in groups.pending(group)] == [m.id for m in group.members]


def test_the_lock_is_reentrant_here_and_leaves_no_file(tmp_path: Path) -> None:
    folder = tmp_path / "g"
    with groups.holding(folder):
        assert (folder / RUNNER_LOCK).is_file()
        assert not groups.runner_alive(folder)  # this process's own hold
        with groups.holding(folder):
            pass
        assert (folder / RUNNER_LOCK).is_file()
    assert not (folder / RUNNER_LOCK).exists()


def test_two_creators_of_one_group_one_wins(tmp_path: Path) -> None:
    folder = tmp_path / "g"
    folder.mkdir()
    start, results = threading.Barrier(8), []

    def create(seed: int) -> None:
        start.wait()
        try:
            groups.create_group(folder, "probe", {"data": "demo"}, {"seed": [seed]})
            results.append(seed)
        except groups.GroupError as err:
            assert "already holds a group" in str(err)
            results.append(None)

    threads = [threading.Thread(target=create, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [seed for seed in results if seed is not None]
    assert len(winners) == 1
    assert groups.read_group(folder).grid == {"seed": winners}
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no file left aside


def test_a_sigterm_ends_a_local_sweep_with_nothing_left_running(tmp_path: Path) -> None:
    """SIGTERM stops the current trial between two steps, recorded (retryable); the queued ones stay."""
    out = tmp_path / "g"
    args = ["probe", "--data", "demo", "--limit", "40", "--steps", "100000", "--geometry-every", "0"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EMBEDLAB_NO_PROGRESS": "1"}
    command = engine_command("sweep", *args, "--threads", "1", "--seeds", "2", "--out", str(out))
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    metrics = out / "runs" / "seed-0" / "metrics.csv"
    try:
        while not (metrics.is_file() and len(metrics.read_text().splitlines()) > 2):
            assert child.poll() is None, child.communicate()
            threading.Event().wait(0.1)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 130, err
    stopped, queued = groups.read_group(out).members
    assert (stopped.status, queued.status) == ("failed", "queued")
    assert "stopped before it finished" in stopped.error
    assert not (out / RUNNER_LOCK).exists() and not (out / "runs" / "seed-0" / ".writer.lock").exists()
