"""A group agrees with its run folders (issue 37, item 4): a member whose folder holds its finished run is
done, never run again (a runner killed after the run ended, a second runner's lost race); one marked done
whose ``status.json`` or ``summary.json`` is damaged is failed with the reason, never silently done."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from engine import cli, groups, runlog

BASE = {"data": "demo", "limit": 40, "steps": 2, "geometry_every": 0}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A group of two seeds, both run to the end."""
    group = groups.create_group(tmp_path_factory.mktemp("done") / "g", "probe", BASE, {"seed": [0, 1]})
    group = groups.run_group(group, groups.LocalExecutor(threads=1, echo=False))
    assert [m.status for m in group.members] == ["done", "done"]
    return group.path


def _copy(finished: Path, tmp_path: Path) -> groups.Group:
    shutil.copytree(finished, tmp_path / "g")
    return groups.read_group(tmp_path / "g")


@pytest.mark.parametrize("left", ["running", "failed", "queued"])
def test_a_member_whose_folder_holds_its_finished_run_is_done(
    finished: Path, tmp_path: Path, left: str
) -> None:
    group = _copy(finished, tmp_path)
    first = group.members[0]
    before = runlog.read_summary(group.path / "runs" / first.id)
    group = group.with_member(replace(first, status=left, error="lost" if left == "failed" else None))
    groups.write_group(group)
    ran = groups.run_group(group, groups.LocalExecutor(threads=1, echo=False), retry_failed=True)
    assert [(m.status, m.attempts, m.error) for m in ran.members] == [("done", 1, None), ("done", 1, None)]
    assert runlog.read_summary(group.path / "runs" / first.id) == before  # read, not run again


def test_a_finished_run_with_other_settings_is_run_again(finished: Path, tmp_path: Path) -> None:
    group = _copy(finished, tmp_path)
    first = group.members[0]
    group = group.with_member(replace(first, status="running", params={**first.params, "seed": 5}))
    assert groups.reconcile(group).member(first.id).status == "running"


@pytest.mark.parametrize("damaged", ["summary.json", "status.json"])
def test_a_done_member_with_a_damaged_folder_is_failed_with_the_reason(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture, damaged: str
) -> None:
    group = _copy(finished, tmp_path)
    (group.path / "runs" / "seed-1" / damaged).write_text('{"state": "fini', encoding="utf-8")
    summary = groups.summarise(group, write=False)
    assert summary["cells"][0]["done"] == (1 if damaged == "summary.json" else 2)
    if damaged == "summary.json":  # the summary alone already says so
        assert summary["cells"][0]["unreadable"] == ["seed-1"]
        assert "1 marked done with no readable summary.json" in groups.format_summary(summary)
    assert cli.main(["group", str(group.path)]) == 0
    shown = capsys.readouterr().out
    assert "2 runs: 1 done, 1 failed" in shown and "failed: seed-1: marked done, but" in shown
    member = groups.read_group(group.path).member("seed-1")
    assert member.status == "failed" and f"{damaged} is damaged" in member.error
    assert [m.id for m in groups.pending(groups.read_group(group.path), retry_failed=True)] == ["seed-1"]


def test_the_group_command_names_members_left_running(finished: Path, tmp_path: Path, capsys) -> None:
    group = _copy(finished, tmp_path)
    (group.path / "runs" / "seed-1" / "status.json").unlink()
    (group.path / "runs" / "seed-1" / "summary.json").unlink()
    second = group.members[1]
    groups.write_group(group.with_member(replace(second, status="running")))
    assert cli.main(["group", str(group.path)]) == 0
    shown = capsys.readouterr().out
    assert "1 running, 1 done" in shown and "left so by a runner that ended" in shown
    assert json.loads((group.path / "group.json").read_text())["members"][1]["status"] == "running"
