"""``python -m engine``: Ctrl-C at any moment, imports included, ends with exit 130 and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from waiting import wait_for

from engine.command.exits import engine_command


def test_an_interrupt_while_importing_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import engine.__main__ as entry
    import engine.cli

    def interrupted() -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine.cli, "main", interrupted)
    with pytest.raises(SystemExit) as ended:
        entry.run()
    assert ended.value.code == 130
    assert capsys.readouterr().err == "interrupted before the run started: nothing was recorded\n"


def _has_loaded(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(
    not Path("/proc/self/maps").exists(), reason="needs Linux /proc to see the child's imports"
)
def test_ctrl_c_during_the_first_seconds_exits_130_without_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "EMBEDLAB_NO_PROGRESS": "1"}
    # a terminal's Ctrl-C reaches a process whose SIGINT is at its default; a test suite started in the
    # background (``pytest &``) has it ignored, and Python then keeps it ignored in the child: restore it
    child = subprocess.Popen(
        engine_command("probe", "--data", "demo", "--steps", "500", "--out", str(tmp_path / "run")),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_for(
        lambda: _has_loaded(child.pid, "numpy") or child.poll() is not None, 60, "the CLI to start importing"
    )
    child.send_signal(signal.SIGINT)
    output, _ = child.communicate(timeout=120)
    assert child.returncode == 130, output
    assert "Traceback" not in output
    assert "interrupted" in output.splitlines()[-1]
