"""The group folder on disk: ``group.json`` (what the group is and the state of each member), written
atomically by one process (the one that runs the group), and read with one-line errors.

``group.json``::

    {"format": 1, "name": str, "kind": experiment kind, "created": unix time,
     "base": {config field: value}, "grid": {knob: [values]},
     "members": [{"id": str, "params": {knob: value}, "status": "queued"|"running"|"done"|"failed",
                  "error": str | null, "attempts": int}]}

A member's run folder is ``<group>/runs/<id>/``, an ordinary run folder (:mod:`engine.runlog`).
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine import runlog
from engine.core import paths
from engine.core.errors import ConfigError, one_line

FORMAT = 1
GROUP_FILE = "group.json"
SUMMARY_FILE = "summary.json"
RUNS = "runs"


class MemberStatus(StrEnum):
    """A member's status in ``group.json``; each member is the string written there (``DONE == "done"``)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


#: every status a member may have, in the order a group's counts list them
STATUSES = tuple(MemberStatus)


class GroupError(ConfigError):
    """A group folder that cannot be read or used: one line naming the folder and what is wrong."""


@dataclass(frozen=True)
class Member:
    """One run of a group: its id (the run folder's name), the knobs it sets on top of the base, its state."""

    id: str
    params: dict[str, Any]
    status: MemberStatus = MemberStatus.QUEUED
    error: str | None = None
    attempts: int = 0


@dataclass(frozen=True)
class Group:
    """A group as read from (or about to be written to) ``path / group.json``."""

    path: Path
    name: str
    kind: str
    created: float
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    members: tuple[Member, ...] = field(default_factory=tuple)

    def member(self, member_id: str) -> Member:
        for item in self.members:
            if item.id == member_id:
                return item
        raise GroupError(f"group {self.name}: no member {member_id!r}")

    def config_of(self, member: Member) -> dict[str, Any]:
        """The config fields of ``member``'s run: the base, then the member's own knobs."""
        return {**self.base, **member.params}

    def with_member(self, member: Member) -> Group:
        """The group with ``member`` (same id) replaced."""
        return replace(self, members=tuple(member if m.id == member.id else m for m in self.members))


def groups_root() -> Path:
    """Where named groups live: ``<cache>/groups`` (:func:`engine.core.paths.groups_dir`)."""
    return paths.groups_dir()


def group_path(name_or_path: str) -> Path:
    """A bare name (no ``/``) is a folder under ``<cache>/groups`` (sanitised); anything else is a path."""
    text = str(name_or_path)
    if "/" in text or text.startswith((".", "~")):
        return Path(text).expanduser()
    return paths.inside(groups_root(), text, what="group name")


def member_id(params: dict[str, Any]) -> str:
    """A member's id from its knobs, in their order: ``lr-0.001_seed-2`` (sanitised to a file name)."""
    if not params:
        return "run"
    text = "_".join(f"{name}-{_short(value)}" for name, value in params.items())
    return paths.safe_name(text, what="member id")


def _short(value: Any) -> str:
    """A value as an id shows it: a float as ``%g`` where that reads back as the same float (``0.001``,
    ``1e-05``), else its shortest round-trip form (``0.1234567``), so distinct values give distinct ids."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        text = f"{value:g}"
        return text if float(text) == value else repr(value)
    return str(value)


def grid_members(grid: dict[str, list[Any]]) -> list[Member]:
    """One queued member per combination of the grid's values (the first knob varies slowest); two
    combinations whose ids are the same file name are one GroupError line naming both."""
    names = list(grid)
    members: list[Member] = []
    seen: dict[str, dict[str, Any]] = {}
    for values in itertools.product(*(grid[name] for name in names)):
        params = dict(zip(names, values, strict=True))
        member = Member(id=member_id(params), params=params)
        if member.id in seen:
            first, second = (", ".join(f"{k}={v!r}" for k, v in p.items()) for p in (seen[member.id], params))
            raise GroupError(
                f"--grid: {first} and {second} would give two runs the same name {member.id!r}; use "
                "values that differ in letters or digits"
            )
        seen[member.id] = params
        members.append(member)
    return members


def create_group(
    path: str | Path,
    kind: str,
    base: dict[str, Any],
    grid: dict[str, list[Any]],
    *,
    name: str | None = None,
) -> Group:
    """Write a new group (every member queued) to ``path`` and return it. ``base`` holds the config fields
    common to all members; ``grid`` the knobs that vary (``{"seed": [0, 1, 2]}``). A folder that already
    holds a group is refused (one line): resume it with :func:`read_group` and
    :func:`engine.groups.run_group`."""
    folder = group_path(str(path)) if isinstance(path, str) else Path(path)
    paths.no_link_here(folder, what="a group")  # never a linked folder (issue 55)
    if (folder / GROUP_FILE).exists():
        raise _taken(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RUNS).mkdir(exist_ok=True)
    except OSError as err:
        raise GroupError(f"group folder {folder}: {err.strerror or err}") from None
    for knob in grid:
        base = {k: v for k, v in base.items() if k != knob}
    group = Group(
        path=folder,
        name=name or folder.name,
        kind=kind,
        created=time.time(),
        base=dict(base),
        grid={k: list(v) for k, v in grid.items()},
        members=tuple(grid_members(grid)),
    )
    _write_new(group)
    return group


def _taken(folder: Path) -> GroupError:
    return GroupError(f"{folder} already holds a group; choose another --out or pass --retry-failed")


def _write_new(group: Group) -> None:
    """``group.json`` of a new group, whole, only where none exists: written aside, then linked under its
    name (which fails when the name exists), so of two processes making a group in one folder one wins."""
    target = group.path / GROUP_FILE
    aside = group.path / f".{GROUP_FILE}.new-{os.getpid()}-{os.urandom(4).hex()}"
    runlog.write_json_atomic(aside, to_json(group))
    try:
        os.link(aside, target)
    except FileExistsError:
        raise _taken(group.path) from None
    except OSError:  # a file system without hard links: the name checked once more, then a rename
        if target.exists():
            raise _taken(group.path) from None
        os.replace(aside, target)
    finally:
        aside.unlink(missing_ok=True)


def write_group(group: Group) -> None:
    """``group.json``, atomically (temporary file, fsync, rename)."""
    runlog.write_json_atomic(group.path / GROUP_FILE, to_json(group))


def to_json(group: Group) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "name": group.name,
        "kind": group.kind,
        "created": group.created,
        "base": group.base,
        "grid": group.grid,
        "members": [
            {"id": m.id, "params": m.params, "status": m.status, "error": m.error, "attempts": m.attempts}
            for m in group.members
        ],
    }


def read_group(path: str | Path) -> Group:
    """The group in folder ``path``; a missing, damaged or partial ``group.json`` is one
    :class:`GroupError` line naming the folder and the fault."""
    folder = Path(path)
    where = f"group {folder}"
    try:
        payload = runlog.read_json(folder / GROUP_FILE)
    except FileNotFoundError:
        raise GroupError(f"{where}: no {GROUP_FILE} (not a group folder)") from None
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise GroupError(f"{where}: {GROUP_FILE} is unreadable ({one_line(err)})") from None
    try:
        return from_json(folder, payload)
    except KeyError as err:
        raise GroupError(f"{where}: {GROUP_FILE} is damaged (no {str(err.args[0])[:40]!r})") from None
    except (TypeError, ValueError) as err:
        raise GroupError(f"{where}: {GROUP_FILE} is damaged ({' '.join(str(err).split())[:200]})") from None


def from_json(folder: Path, payload: dict[str, Any]) -> Group:
    """A :class:`Group` from the parsed ``group.json``; KeyError/TypeError/ValueError for a bad one."""
    if payload.get("format") != FORMAT:
        raise ValueError(f"format {payload.get('format')!r}, expected {FORMAT}")
    base, grid = _mapping(payload["base"], "base"), _mapping(payload["grid"], "grid")
    for knob, values in grid.items():
        if not isinstance(values, list):
            raise TypeError(f"grid {knob!r} is not a list")
    created = payload["created"]
    if isinstance(created, bool) or not isinstance(created, (int, float)):
        raise TypeError("created is not a number")
    members = tuple(_member(item) for item in _list(payload["members"], "members"))
    if len({m.id for m in members}) != len(members):
        raise ValueError("two members share an id")
    return Group(
        path=folder,
        name=_text(payload["name"], "name"),
        kind=_text(payload["kind"], "kind"),
        created=float(created),
        base=base,
        grid=grid,
        members=members,
    )


def _member(item: Any) -> Member:
    item = _mapping(item, "member")
    member = _text(item["id"], "member id")
    try:
        plain = paths.safe_name(member, what="member id") == member
    except ConfigError:
        plain = False
    if not plain:
        raise ValueError(f"member id {member[:40]!r} is not a plain folder name")
    status = item["status"]
    if not isinstance(status, str) or status not in STATUSES:
        raise ValueError(f"member {member}: status {status!r} is not one of {', '.join(STATUSES)}")
    status = MemberStatus(status)
    error = item.get("error")
    if error is not None and not isinstance(error, str):
        raise TypeError(f"member {member}: error is not text")
    attempts = item.get("attempts", 0)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
        raise ValueError(f"member {member}: attempts is not a count")
    return Member(
        id=member, params=_mapping(item["params"], "params"), status=status, error=error, attempts=attempts
    )


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not an object")
    return dict(value)


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{what} is not a list")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{what} is not a text")
    return value


def member_dirs(group: Group) -> dict[str, Path]:
    """Each member's run folder, by member id (it may not exist yet: a queued member)."""
    return {m.id: group.path / RUNS / m.id for m in group.members}


def list_groups(root: Path | None = None) -> list[Group]:
    """The readable groups under ``root`` (default ``<cache>/groups``), newest first; damaged ones are left
    out (read one with :func:`read_group` for its reason)."""
    folder = root if root is not None else groups_root()
    found = []
    for child in sorted(folder.iterdir()) if folder.is_dir() else []:
        if child.is_dir() and (child / GROUP_FILE).is_file():
            try:
                found.append(read_group(child))
            except GroupError:
                continue
    return sorted(found, key=lambda g: g.created, reverse=True)
