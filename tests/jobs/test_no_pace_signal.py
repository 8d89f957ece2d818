"""Issue 55, item 1 (SIGUSR1 to a reused PID) removed at its root (issue 58, item 9): the server never
signals a run's child for its pace, so nothing in the job server sends a signal to a PID it stored. On
e23a065, ``Job.mark_shown`` sent ``os.kill(self.pid, SIGUSR1)`` after the reaper had freed the PID, and a
``sleep`` given that PID was killed in 3 of 4 tries: these tests fail there."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the functions that send a signal to a process by its number
SENDERS = {("os", "kill"), ("os", "killpg"), ("signal", "pthread_kill")}


def stored_pid_signals(path: Path) -> list[str]:
    """The calls in ``path`` that signal a process by a number kept somewhere (an attribute or an item:
    ``os.kill(self.pid, ...)``, ``os.kill(job.pid, ...)``), as ``file:line``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        if not isinstance(owner, ast.Name) or (owner.id, node.func.attr) not in SENDERS or not node.args:
            continue
        if isinstance(node.args[0], ast.Attribute | ast.Subscript):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_the_job_server_never_signals_a_stored_pid() -> None:
    found = [
        hit for path in sorted((ROOT / "engine" / "jobs").rglob("*.py")) for hit in stored_pid_signals(path)
    ]
    found += [hit for path in sorted((ROOT / "ui").rglob("*.py")) for hit in stored_pid_signals(path)]
    assert not found, f"a signal sent to a stored PID (it may have been reused): {found}"


def test_no_run_listens_for_a_pace_cue_and_the_browsers_cue_stays_in_the_view() -> None:
    """No SIGUSR1 handler in a run's process; the live view's ``drawn`` cue (ui/web/live.js) reaches the
    view's playheads only: its callback is ``ui.player.cue``, which reads no job, registry or process."""
    engine = [
        path for path in (ROOT / "engine").rglob("*.py") if "SIGUSR1" in path.read_text(encoding="utf-8")
    ]
    assert not engine, f"SIGUSR1 in {engine}"
    live = (ROOT / "ui" / "live.py").read_text(encoding="utf-8")
    assert "on_drawn=player.cue" in live and live.count("on_drawn=") == 1
    (cue,) = [
        node
        for node in ast.walk(ast.parse((ROOT / "ui" / "player.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "cue"
    ]
    names = {node.id for node in ast.walk(cue) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(cue) if isinstance(node, ast.Attribute)}
    touched = names & {"os", "signal", "subprocess", "registry", "Job", "job", "pid", "kill", "mark_shown"}
    assert not touched, f"the cue reaches beyond the playheads: {touched}"
    from engine.jobs import Job

    assert not [name for name in dir(Job) if "shown" in name or "cue" in name], "a job hears of the view"


def test_the_checker_finds_the_old_signal() -> None:
    """The checker itself: e23a065's call is found (the test above can fail)."""
    old = ROOT / "test-artifacts" / "old_job.py"
    old.parent.mkdir(exist_ok=True)
    old.write_text("import os, signal\n\ndef mark_shown(self):\n    os.kill(self.pid, signal.SIGUSR1)\n")
    try:
        assert stored_pid_signals(old) == ["test-artifacts/old_job.py:4"]
    finally:
        old.unlink()
