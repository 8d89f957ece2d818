"""``python -m engine results`` never damages a document (issue 47): written whole or not at all (harmful case
4: a full disk cut one mid-line), its line endings kept, a script bounded in time and ended with the command,
and a script's output holding a marker refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.cli import main
from engine.core.settings import REPO_ROOT

PROSE = "".join(f"line {n} of the prose that must survive a full disk, word for word.\n" for n in range(400))
BLOCK = "<!-- results:script scripts/table.py -->\nold\n<!-- /results:script -->\n"


def _script(root: Path, source: str) -> None:
    (root / "scripts").mkdir(exist_ok=True)
    (root / "scripts" / "table.py").write_text(source, encoding="utf-8")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_full_disk_leaves_the_document_whole(tmp_path: Path) -> None:
    """Harmful case 4, with a file-size limit standing for the full disk: any write past it fails (EFBIG),
    as the write of the document's tail did; the document is left byte for byte as it was."""
    _script(tmp_path, "print('| a |\\n|---|\\n| ' + 'x' * 20 + ' |')\n")
    doc = tmp_path / "r.md"
    body = PROSE + BLOCK + PROSE
    doc.write_text(body, encoding="utf-8")
    limit = len(body.encode()) // 2
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
        "from engine.cli import main\n"
        f"sys.exit(main(['results', {str(doc)!r}, '--root', {str(tmp_path)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "left as it was" in lines[0] and "Traceback" not in done.stderr
    assert doc.read_text(encoding="utf-8") == body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md", "scripts"]  # no temporary file left


def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    _script(tmp_path, "print('| a |')\n")
    doc = tmp_path / "r.md"
    doc.write_bytes(("intro\n" + BLOCK + "outro\n").replace("\n", "\r\n").encode())
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 0
    data = doc.read_bytes()
    assert b"| a |\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    assert data.startswith(b"intro\r\n<!-- results:script") and data.endswith(b"outro\r\n")


def test_a_scripts_output_holding_a_marker_is_refused(tmp_path: Path, capsys) -> None:
    """A script printing a closing and an opening marker grew the document at every run."""
    markers = "<!-- /results:script -->\\n<!-- results:script scripts/table.py -->"
    _script(tmp_path, f"print('x\\n{markers}\\ny')\n")
    doc = tmp_path / "r.md"
    doc.write_text(BLOCK, encoding="utf-8")
    for _ in range(2):
        assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
        assert doc.read_text(encoding="utf-8") == BLOCK
    assert "printed a results marker" in capsys.readouterr().err


def test_a_hanging_script_is_ended_past_its_time(tmp_path: Path, monkeypatch, capsys) -> None:
    """The script and what it started are killed (its own session); its table is kept."""
    pids = tmp_path / "pids"
    _script(
        tmp_path,
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(600)\n",
    )
    doc = tmp_path / "r.md"
    doc.write_text(BLOCK, encoding="utf-8")
    monkeypatch.setenv("EMBEDLAB_RESULTS_SCRIPT_SECONDS", "3")
    assert main(["results", str(doc), "--root", str(tmp_path)]) == 1
    assert "ran past 3 s" in capsys.readouterr().err
    assert doc.read_text(encoding="utf-8") == BLOCK
    script, child = map(int, pids.read_text().split())
    assert not _alive(script)
    for _ in range(100):  # the grandchild is reaped by init: it may take a moment to vanish
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def test_sigterm_to_the_command_ends_its_script(tmp_path: Path) -> None:
    """The script was left running after the command's SIGTERM."""
    pid_file = tmp_path / "pid"
    _script(
        tmp_path,
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n",
    )
    doc = tmp_path / "r.md"
    doc.write_text(BLOCK, encoding="utf-8")
    command = subprocess.Popen(
        [sys.executable, "-m", "engine", "results", str(doc), "--root", str(tmp_path)],
        cwd=REPO_ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(1200):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.1)
    script = int(pid_file.read_text())
    command.send_signal(signal.SIGTERM)
    _, err = command.communicate(timeout=120)
    assert command.returncode == 143 and "results: stopped by SIGTERM" in err, err
    for _ in range(100):
        if not _alive(script):
            break
        time.sleep(0.05)
    assert not _alive(script)
    assert doc.read_text(encoding="utf-8") == BLOCK
