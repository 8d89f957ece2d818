"""engine.groups' folder format: group.json round trip, the member ids, and a reader that answers any
damaged or partial file with one GroupError line (hypothesis)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import groups
from engine.groups.format import from_json, grid_members, to_json


def _group(tmp_path: Path) -> groups.Group:
    return groups.create_group(
        tmp_path / "g", "probe", {"data": "demo", "steps": 5, "lr": 0.5}, {"lr": [1e-3, 0.01], "seed": [0, 1]}
    )


def test_a_created_group_reads_back_the_same(tmp_path: Path) -> None:
    made = _group(tmp_path)
    assert groups.read_group(made.path) == made
    assert [m.id for m in made.members] == [
        "lr-0.001_seed-0",
        "lr-0.001_seed-1",
        "lr-0.01_seed-0",
        "lr-0.01_seed-1",
    ]
    assert all(m.status == "queued" and m.attempts == 0 and m.error is None for m in made.members)
    assert "lr" not in made.base  # a grid knob is not part of the base
    assert made.config_of(made.members[2]) == {"data": "demo", "steps": 5, "lr": 0.01, "seed": 0}
    assert set(groups.member_dirs(made).values()) == {made.path / "runs" / m.id for m in made.members}
    changed = made.with_member(groups.Member("lr-0.01_seed-1", {"lr": 0.01, "seed": 1}, "failed", "boom", 2))
    groups.write_group(changed)
    assert groups.read_group(made.path) == changed


def test_a_folder_that_holds_a_group_is_not_overwritten(tmp_path: Path) -> None:
    _group(tmp_path)
    with pytest.raises(groups.GroupError, match="already holds a group"):
        _group(tmp_path)


def test_a_bare_name_is_a_group_under_the_cache(own_cache: Path) -> None:
    assert groups.group_path("my seeds") == (own_cache / "groups" / "my-seeds").resolve()
    assert groups.group_path("elsewhere/g") == Path("elsewhere/g")
    made = groups.create_group("my seeds", "probe", {}, {"seed": [0]})
    assert [g.path for g in groups.list_groups()] == [made.path]


def test_list_groups_leaves_out_damaged_folders(tmp_path: Path) -> None:
    made = _group(tmp_path)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "group.json").write_text("{", encoding="utf-8")
    assert [g.name for g in groups.list_groups(tmp_path)] == [made.name]


def test_two_members_with_one_name_are_refused() -> None:
    with pytest.raises(groups.GroupError, match="same name"):
        grid_members({"data": ["a/b", "a:b"]})


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        (None, "no group.json"),
        ("", "unreadable"),
        ('{"format": 1', "unreadable"),
        ("[]", "unreadable"),
        ('{"format": 2}', "damaged (format 2, expected 1)"),
        ('{"format": 1, "name": "g"}', "damaged"),
    ],
)
def test_damaged_files_are_one_line(tmp_path: Path, text: str | None, fault: str) -> None:
    if text is not None:
        (tmp_path / "group.json").write_text(text, encoding="utf-8")
    with pytest.raises(groups.GroupError) as caught:
        groups.read_group(tmp_path)
    assert fault in str(caught.value) and "\n" not in str(caught.value)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cut=st.integers(min_value=0, max_value=2000),
    key=st.sampled_from(
        [
            "format",
            "name",
            "kind",
            "created",
            "base",
            "grid",
            "members",
            "id",
            "params",
            "status",
            "error",
            "attempts",
        ]
    ),
    value=_JSON,
)
def test_any_damaged_or_partial_group_file_is_one_line(
    tmp_path: Path, cut: int, key: str, value: object
) -> None:
    """A group.json cut short anywhere, or with any field replaced by any JSON value, reads as a valid group
    or fails with one GroupError line (never another exception)."""
    folder = tmp_path / "g"
    folder.mkdir(exist_ok=True)
    payload = to_json(from_json(folder, json.loads(json.dumps(_PAYLOAD))))
    text = json.dumps(payload)
    for damaged in (text[:cut], json.dumps(_replaced(payload, key, value))):
        (folder / "group.json").write_text(damaged, encoding="utf-8")
        try:
            read = groups.read_group(folder)
        except groups.GroupError as err:
            assert "\n" not in str(err) and str(folder) in str(err)
        else:
            assert isinstance(read, groups.Group)
            assert all(m.status in ("queued", "running", "done", "failed") for m in read.members)


def _replaced(payload: dict, key: str, value: object) -> dict:
    copy = json.loads(json.dumps(payload))
    if key in copy:
        copy[key] = value
    else:
        copy["members"][0][key] = value
    return copy


_PAYLOAD = {
    "format": 1,
    "name": "g",
    "kind": "probe",
    "created": 1.0,
    "base": {"data": "demo"},
    "grid": {"seed": [0, 1]},
    "members": [
        {"id": "seed-0", "params": {"seed": 0}, "status": "done", "error": None, "attempts": 1},
        {"id": "seed-1", "params": {"seed": 1}, "status": "failed", "error": "boom", "attempts": 1},
    ],
}


@pytest.mark.parametrize("bad_id", [".", "../x", "a/b", "???", ""])
def test_a_member_id_that_is_not_a_folder_name_is_refused(tmp_path: Path, bad_id: str) -> None:
    payload = json.loads(json.dumps(_PAYLOAD))
    payload["members"][0]["id"] = bad_id
    (tmp_path / "group.json").write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(groups.GroupError, match="damaged"):
        groups.read_group(tmp_path)


def test_a_members_status_reads_back_as_the_enum_and_is_written_as_its_string(tmp_path: Path) -> None:
    made = _group(tmp_path)
    done = replace(made.members[0], status=groups.MemberStatus.DONE)
    groups.write_group(made.with_member(done))
    written = json.loads((made.path / "group.json").read_text(encoding="utf-8"))
    assert [m["status"] for m in written["members"]] == ["done", "queued", "queued", "queued"]
    read = groups.read_group(made.path)
    assert all(type(m.status) is groups.MemberStatus for m in read.members)
    assert groups.counts(read) == {"queued": 3, "running": 0, "done": 1, "failed": 0}
