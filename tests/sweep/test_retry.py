"""A sweep whose trial fails: the group records it (status, one-line error), the others finish, the exit
code says so, and ``--retry-failed`` reruns only that trial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import cli, groups, runlog

SHORT = ["--limit", "40", "--steps", "3", "--geometry-every", "0", "--threads", "1"]


def _labelled_file(path: Path) -> None:
    rows = [
        {"text": f"sentence number {i} about {'cats' if i % 2 else 'stocks'}", "label": i % 2}
        for i in range(40)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def test_a_failed_trial_is_reported_and_only_it_is_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    late = tmp_path / "late.jsonl"  # empty at first: its trial fails (a missing file is refused up front)
    late.write_text("", encoding="utf-8")
    out = tmp_path / "sweep"
    args = ["sweep", "probe", *SHORT, "--grid", f"data=demo,{late}", "--out", str(out)]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    group = groups.read_group(out)
    done, failed = group.members
    assert (done.status, done.attempts, done.error) == ("done", 1, None)
    assert (failed.status, failed.attempts) == ("failed", 1)
    assert "late.jsonl" in failed.error and "\n" not in failed.error
    assert f"failed: {failed.id}: {failed.error}" in err and "--retry-failed" in err
    summary = json.loads((out / "summary.json").read_text())
    assert [(c["done"], c["failed"]) for c in summary["cells"]] == [(1, 0), (0, 1)]
    assert summary["cells"][1]["figures"] == {}
    first_run = runlog.read_summary(out / "runs" / done.id)

    _labelled_file(late)
    assert cli.main(["sweep", "probe", "--retry-failed", "--out", str(out)]) == 0
    group = groups.read_group(out)
    assert [(m.status, m.attempts, m.error) for m in group.members] == [("done", 1, None), ("done", 2, None)]
    assert runlog.read_summary(out / "runs" / done.id) == first_run  # the done trial was not run again
    assert json.loads((out / "summary.json").read_text())["cells"][1]["done"] == 1
    assert "1 of 2 runs to go" in capsys.readouterr().err


def test_a_new_sweep_never_overwrites_a_group(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "g"
    groups.create_group(out, "probe", {}, {"seed": [0]})
    assert cli.main(["sweep", "probe", *SHORT, "--seeds", "1", "--out", str(out)]) == 2
    assert "already holds a group" in capsys.readouterr().err


def test_members_left_running_by_a_process_that_ended_are_run_again(tmp_path: Path) -> None:
    group = groups.create_group(
        tmp_path / "g", "probe", {"data": "demo", "limit": 40, "steps": 2}, {"seed": [0, 1]}
    )
    first, second = group.members
    group = group.with_member(groups.Member(first.id, first.params, "running", None, 1))
    group = group.with_member(groups.Member(second.id, second.params, "failed", "boom", 1))
    assert [m.id for m in groups.pending(group)] == [first.id]
    assert [m.id for m in groups.pending(group, retry_failed=True)] == [first.id, second.id]
    seen = []
    finished = groups.run_group(group, groups.LocalExecutor(threads=1, echo=False), on_update=seen.append)
    assert [(m.status, m.attempts) for m in finished.members] == [("done", 2), ("failed", 1)]
    assert [g.member(first.id).status for g in seen] == ["running", "done"]
    assert groups.read_group(tmp_path / "g") == finished
