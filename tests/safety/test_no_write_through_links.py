"""Nothing the lab writes follows a symbolic link out of the folder it means to write (issue 55, item 2):
``results --ship`` through a linked ``docs/run-folders/cache/myrun2`` overwrote a user's config.json and
metrics.csv on e23a065; a run, a group, a saved encoder's card and the live feed's files are refused or
written beside a link too. Each refusal is one line naming the link (engine.core.paths.no_link)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import runlog
from engine.claims import shipped
from engine.cli import main
from engine.core import paths
from engine.core.errors import ConfigError
from engine.groups import format as group_format


def _users_folder(root: Path) -> dict[str, bytes]:
    """A user's folder holding their own config.json and metrics.csv; its bytes by name."""
    root.mkdir(parents=True)
    (root / "config.json").write_text('{"mine": true}\n')
    (root / "metrics.csv").write_text("step,my_column\n0,1\n")
    return _snapshot(root)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def _finished_run(folder: Path) -> None:
    folder.mkdir(parents=True)
    status = {"state": "finished", "ended": 1.9e9, "last_step": 1}
    (folder / "status.json").write_text(json.dumps(status))
    (folder / "config.json").write_text('{"kind": "simcse"}')
    (folder / "summary.json").write_text("{}")
    (folder / "metrics.csv").write_text("step,sts_spearman\n0,0.7\n1,0.8\n")


def test_ship_through_a_linked_run_folder_is_refused(tmp_path: Path, capsys) -> None:
    """The issue's reproduction: the user's files unchanged, a non-zero exit, one line naming the link."""
    repo, user = tmp_path / "repo", tmp_path / "home" / "user-folder"
    before = _users_folder(user)
    _finished_run(repo / "cache" / "myrun2")
    link = repo / shipped.SHIPPED / "cache" / "myrun2"
    link.parent.mkdir(parents=True)
    link.symlink_to(user, target_is_directory=True)
    doc = repo / "docs" / "results.md"
    doc.write_text("<!-- results:runs measures=sts_spearman cache/myrun2 -->\n<!-- /results:runs -->\n")
    assert main(["results", str(doc), "--root", str(repo), "--ship"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(link) in err, err
    assert _snapshot(user) == before


def test_ship_through_a_linked_shipped_folder_above_the_run_is_refused(tmp_path: Path) -> None:
    repo, user = tmp_path / "repo", tmp_path / "user"
    before = _users_folder(user)
    _finished_run(repo / "cache" / "runs" / "a")
    (repo / shipped.SHIPPED).mkdir(parents=True)
    (repo / shipped.SHIPPED / "cache").symlink_to(user, target_is_directory=True)
    with pytest.raises(ConfigError, match="a symbolic link"):
        shipped.ship(["cache/runs/a"], repo)
    assert _snapshot(user) == before


def test_a_run_into_a_linked_folder_is_refused(tmp_path: Path) -> None:
    user = tmp_path / "user"
    before = _users_folder(user)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r").symlink_to(user, target_is_directory=True)
    with pytest.raises(ConfigError, match=r"runs/r: a symbolic link"):
        runlog.RunWriter(tmp_path / "runs" / "r", ["step"], {"kind": "probe"})
    assert _snapshot(user) == before


def test_a_group_into_a_linked_folder_is_refused(tmp_path: Path) -> None:
    user = tmp_path / "user"
    before = _users_folder(user)
    (tmp_path / "g").symlink_to(user, target_is_directory=True)
    with pytest.raises(ConfigError, match="a symbolic link"):
        group_format.create_group(tmp_path / "g", "probe", {}, {"seed": [0, 1]})
    assert _snapshot(user) == before


def test_the_helper_refuses_links_dot_dots_and_paths_outside(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "a" / "l").symlink_to(tmp_path / "out")
    assert paths.no_link(tmp_path, tmp_path / "a" / "new" / "f") == tmp_path / "a" / "new" / "f"
    for bad in (tmp_path / "a" / "l" / "f", tmp_path / "a" / ".." / "out", tmp_path.parent / "x"):
        with pytest.raises(ConfigError) as err:
            paths.no_link(tmp_path, bad)
        assert "\n" not in str(err.value)


def test_a_feed_file_is_written_beside_a_link_never_through_it(tmp_path: Path) -> None:
    from ui import feed

    user = tmp_path / "user"
    before = _users_folder(user)
    feeder = feed.Feeder(tmp_path / "live")
    feeder.root.mkdir()
    os.symlink(user / "config.json", feeder.root / ".f.json.tmp")
    feeder._replace("f.json", b"{}")
    assert (feeder.root / "f.json").read_bytes() == b"{}" and _snapshot(user) == before
