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


def test_no_run_listens_for_a_pace_cue_and_no_browser_sends_one() -> None:
    """No SIGUSR1 handler in a run's process, no ``drawn`` cue from the live view to the server."""
    engine = [
        path for path in (ROOT / "engine").rglob("*.py") if "SIGUSR1" in path.read_text(encoding="utf-8")
    ]
    assert not engine, f"SIGUSR1 in {engine}"
    live = (ROOT / "ui" / "web" / "live.js").read_text(encoding="utf-8")
    assert 'trigger("drawn"' not in live and "on_drawn" not in (ROOT / "ui" / "live_view.py").read_text()


def test_the_checker_finds_the_old_signal() -> None:
    """The checker itself: e23a065's call is found (the test above can fail)."""
    old = ROOT / "test-artifacts" / "old_job.py"
    old.parent.mkdir(exist_ok=True)
    old.write_text("import os, signal\n\ndef mark_shown(self):\n    os.kill(self.pid, signal.SIGUSR1)\n")
    try:
        assert stored_pid_signals(old) == ["test-artifacts/old_job.py:4"]
    finally:
        old.unlink()
