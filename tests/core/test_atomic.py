"""engine/core/atomic.py: a file rewritten whole or not at all, its bytes and permission bits as given or
kept, a symbolic link replaced and never written through (issue 47)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from engine.core import atomic
from engine.runlog.files import write_json_atomic


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "doc.md"
    path.write_text("old prose\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OSError):
        atomic.write_text_atomic(path, "new prose\n" * 1000)
    assert path.read_text() == "old prose\n" and os.listdir(tmp_path) == ["doc.md"]


def test_bytes_are_written_as_given_and_the_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text("a\n")
    path.chmod(0o640)
    atomic.write_text_atomic(path, "x\r\ny\r\n")
    assert path.read_bytes() == b"x\r\ny\r\n" and stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_new_run_file_is_readable_as_open_makes_it(tmp_path: Path) -> None:
    """Run files were written 0600 (a temporary file's mode): a group's runs on a shared file system were
    unreadable to the other users."""
    before = os.umask(0o022)
    try:
        write_json_atomic(tmp_path / "status.json", {"state": "running"})
        (tmp_path / "plain").write_text("")
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "status.json").stat().st_mode) == 0o644
    assert atomic.umask() == before


def test_a_link_is_replaced_never_written_through(tmp_path: Path) -> None:
    users = tmp_path / "users.txt"
    users.write_text("mine\n")
    (tmp_path / "run.json").symlink_to(users)
    atomic.write_text_atomic(tmp_path / "run.json", "{}")
    assert users.read_text() == "mine\n" and not (tmp_path / "run.json").is_symlink()


@pytest.mark.parametrize(
    ("text", "ending"), [("a\r\nb\r\n", "\r\n"), ("a\nb\n", "\n"), ("a\r\nb\n", "\n"), ("", "\n")]
)
def test_line_ending(text: str, ending: str) -> None:
    assert atomic.line_ending(text) == ending
