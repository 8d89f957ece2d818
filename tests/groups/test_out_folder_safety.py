"""``--out`` and ``--force`` never touch a user's files (issue 47, harmful cases 1 and 2): a run folder is a
new folder, an empty one, or one holding a run the lab wrote; anything else is one line, exit 2, nothing
touched.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import cli, runlog
from engine.core.errors import ConfigError
from engine.runlog.out_dir import prepare_out_dir

PROBE = ["probe", "--data", "demo", "--steps", "2"]


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root`` (no link followed): a file's bytes, a folder or link as None."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            is_file = path.is_file() and not path.is_symlink()
            found[str(path.relative_to(root))] = path.read_bytes() if is_file else None
    return found


def _users_folder(root: Path) -> Path:
    folder = root / "D"
    (folder / "sub").mkdir(parents=True)
    (folder / "precious.txt").write_text("x\n")
    (folder / "sub" / "thesis.tex").write_text("y\n")
    return folder


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("force", [False, True])
def test_force_never_deletes_a_users_files(tmp_path: Path, monkeypatch, capsys, force: bool) -> None:
    """Harmful case 1: ``--out D`` took a folder of the user's files, and ``--force`` then deleted them."""
    monkeypatch.chdir(tmp_path)
    folder = _users_folder(tmp_path)
    before = _tree(tmp_path)
    assert cli.main([*PROBE, "--out", "D", *(["--force"] if force else [])]) == 2
    assert "holds files the lab did not write (precious.txt, sub)" in _one_error_line(capsys.readouterr().err)
    assert _tree(tmp_path) == before and folder.is_dir()


@pytest.mark.parametrize("out", ["", ".", "/"])
def test_out_never_takes_the_current_folder_or_the_root(
    tmp_path: Path, monkeypatch, capsys, out: str
) -> None:
    """Harmful case 2: ``--out ""`` was the current folder (``--force`` deleted a README and a notes folder
    there), ``--out /`` wrote five run files into ``/``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.txt").write_text("mine\n")
    (tmp_path / "notes").mkdir()
    before, root_before = _tree(tmp_path), sorted(os.listdir("/"))
    assert cli.main([*PROBE, "--out", out, "--force"]) == 2
    _one_error_line(capsys.readouterr().err)
    assert _tree(tmp_path) == before and sorted(os.listdir("/")) == root_before


def test_force_replaces_a_run_the_lab_wrote(tmp_path: Path) -> None:
    old = runlog.RunWriter(tmp_path / "run", ["step"], {"kind": "probe"})
    old.append({"step": 0})
    old.finish("finished")
    with pytest.raises(ConfigError, match="already holds a run"):
        prepare_out_dir(str(tmp_path / "run"), force=False)
    assert prepare_out_dir(str(tmp_path / "run"), force=True) == tmp_path / "run"


def test_the_writer_never_swaps_away_a_folder_with_a_users_files(tmp_path: Path) -> None:
    """Every caller of the writer, not the CLI's only: a run's files beside a user's are never replaced."""
    (tmp_path / "metrics.csv").write_text("step\n0\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    with pytest.raises(ConfigError, match="notes.txt"):
        runlog.RunWriter(tmp_path, ["step"], {"kind": "probe"})
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


# ---------------------------------------------------------------- every kind of --out value (hypothesis)


def _make(kind: str, root: Path) -> str:
    """An ``--out`` value of ``kind`` under ``root`` (the current folder during the call)."""
    makers: dict[str, Callable[[], str]] = {
        "empty": lambda: "",
        "dot": lambda: ".",
        "root": lambda: "/",
        "home": lambda: "~",
        "parent": lambda: "..",
        "new": lambda: "fresh/run",
        "empty folder": lambda: (root / "empty").mkdir() or "empty",
        "file": lambda: (root / "a-file").write_text("mine\n") and "a-file",
        "users folder": lambda: str(_users_folder(root)),
        "link to users folder": lambda: os.symlink(_users_folder(root), root / "link") or "link",
        "link to a file": lambda: (
            (root / "target").write_text("t\n") and os.symlink(root / "target", root / "flink") or "flink"
        ),
        "dangling link": lambda: os.symlink(root / "nowhere", root / "dangling") or "dangling",
        "users metrics": lambda: _users_metrics(root / "m"),
        "lab run": lambda: _lab_run(root / "run"),
        "lab run and a users file": lambda: _lab_run(root / "mixed", extra="notes.md"),
    }
    return makers[kind]()


def _users_metrics(folder: Path) -> str:
    folder.mkdir()
    (folder / "metrics.csv").write_text("1\n")
    return str(folder)


def _lab_run(folder: Path, extra: str | None = None) -> str:
    writer = runlog.RunWriter(folder, ["step"], {"kind": "probe"})
    writer.append({"step": 0})
    writer.finish("finished")
    if extra:
        (folder / extra).write_text("mine\n")
    return str(folder)


KINDS = [
    "empty",
    "dot",
    "root",
    "home",
    "parent",
    "new",
    "empty folder",
    "file",
    "users folder",
    "link to users folder",
    "link to a file",
    "dangling link",
    "users metrics",
    "lab run",
    "lab run and a users file",
]
REFUSED_ALWAYS = set(KINDS) - {"new", "empty folder", "lab run"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), force=st.booleans())
def test_every_out_value_is_a_run_folder_or_one_line(monkeypatch, kind: str, force: bool) -> None:
    """One line (a ConfigError) or a run folder, never a user's file lost: the run is then written and
    finished, so ``--force`` swaps the old folder away as the CLI's does."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve()
        monkeypatch.chdir(root)
        out = _make(kind, root)
        before = {k: v for k, v in _tree(root).items() if not k.startswith(("run", "fresh", "empty"))}
        try:
            folder = prepare_out_dir(out, force)
        except ConfigError as err:
            assert "\n" not in str(err) and str(err).startswith("--out")
            assert kind in REFUSED_ALWAYS or (kind == "lab run" and not force)
        else:
            assert kind not in REFUSED_ALWAYS and root in folder.resolve().parents
            writer = runlog.RunWriter(folder, ["step"], {"kind": "probe"})
            writer.finish("finished")
        after = _tree(root)
        assert all(after.get(name) == data for name, data in before.items()), kind
