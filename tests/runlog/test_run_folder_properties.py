"""Property-based test of the run-folder reader (issue 24): a runs folder built from valid runs with random
damage (truncation, garbage bytes, wrong types, missing files, a folder that may not be read (simulated),
named pipes, links, times from the future). Properties: listing never raises and never hangs, every valid run
is listed, every folder is either listed or named as damaged with a reason, a linked run is listed once."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import runlog

FILES = (runlog.CONFIG, runlog.STATUS, runlog.METRICS, runlog.SPECTRUM, runlog.SUMMARY)
_FAST = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # fsync is free in memory: a fast suite
DAMAGES = (
    "truncate",
    "garbage",
    "wrong-types",
    "missing",
    "forbidden",
    "fifo",
    "future",
    "bad-row",
    "link-in",
    "link-out",
)

YEAR_3000 = 32503680000.0  # a start time from the future, as a damaged status may hold


def _valid_run(folder: Path, steps: int) -> None:
    writer = runlog.RunWriter(folder, ["step", "loss"], {"kind": "probe", "steps": steps})
    for step in range(steps):
        writer.append_spectrum(step, [3.0, 1.0])
        writer.append({"step": step, "loss": 1.0 / (step + 1)})
    writer.finish("finished", summary={"steps": steps})


def _forbid(patch: pytest.MonkeyPatch, folder: Path) -> None:
    """EACCES for anything inside ``folder``, as a mode-000 folder gives a non-root reader."""

    def guard(real):
        def wrapped(path, *args, **kwargs):
            try:
                inside = folder in Path(os.fsdecode(path)).parents
            except TypeError:
                inside = False
            if inside:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real(path, *args, **kwargs)

        return wrapped

    for module, name in ((os, "stat"), (os, "lstat"), (os, "open"), (builtins, "open"), (io, "open")):
        patch.setattr(module, name, guard(getattr(module, name)))


def _damage(folder: Path, damage: str, name: str, cut: float, outside: Path, data: bytes) -> None:
    path = folder / name
    if damage == "truncate" and path.exists():
        raw = path.read_bytes()
        path.write_bytes(raw[: int(len(raw) * cut)])
    elif damage == "garbage":
        path.write_bytes(data)
    elif damage == "wrong-types":
        value = json.loads((folder / runlog.STATUS).read_text())
        value.update(started="yesterday", state=7, pid=[1], error={"a": 1})
        (folder / runlog.STATUS).write_text(json.dumps(value))
        (folder / runlog.CONFIG).write_text(json.dumps(["not", "an", "object"]) if cut < 0.5 else "{}")
    elif damage == "missing":
        path.unlink(missing_ok=True)
    elif damage == "fifo":
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    elif damage == "future":
        value = json.loads((folder / runlog.STATUS).read_text())
        value["started"] = YEAR_3000 + cut
        (folder / runlog.STATUS).write_text(json.dumps(value))
    elif damage == "bad-row":
        with open(folder / runlog.METRICS, "ab") as handle:
            handle.write(data + b"\n1,0.5\n")
    elif damage == "link-out":
        _valid_run(outside / folder.name, 1)
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
        folder.symlink_to(outside / folder.name, target_is_directory=True)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    valid=st.integers(1, 3),
    damaged=st.lists(
        st.tuples(
            st.sampled_from(DAMAGES),
            st.sampled_from(FILES),
            st.floats(0, 1),
            st.binary(max_size=64),
        ),
        max_size=4,
    ),
)
@pytest.mark.timeout(120)
def test_listing_survives_any_damage(valid: int, damaged: list[tuple[str, str, float, bytes]]) -> None:
    with tempfile.TemporaryDirectory(dir=_FAST) as tmp, pytest.MonkeyPatch.context() as patch:
        root, outside = Path(tmp) / "runs", Path(tmp) / "outside"
        good = [f"valid-{i}" for i in range(valid)]
        for i, name in enumerate(good):
            _valid_run(root / name, i + 1)
        names = []
        for i, (damage, file, cut, data) in enumerate(damaged):
            name = f"damaged-{i}-{damage}"
            names.append(name)
            if damage == "link-in":
                (root / name).symlink_to(root / good[0], target_is_directory=True)
                continue
            _valid_run(root / name, 2)
            _damage(root / name, damage, file, cut, outside, data)
            if damage == "forbidden":
                _forbid(patch, root / name)
        before = time.time()
        found: list[runlog.DamagedRun] = []
        runs = runlog.list_runs(root, found)
        listed = [info.name for info in runs]
        named = {d.name: d.reason for d in found}
        assert set(good) <= set(listed)
        assert len(listed) == len(set(listed)) and not set(listed) & set(named)
        for name in names:
            if name.endswith("link-in"):
                assert name not in listed and name not in named  # the run it links to is listed once
            else:
                assert name in listed or named.get(name), name
        assert all(reason.strip() for reason in named.values())
        assert all(info.started is None or info.started < YEAR_3000 for info in runs)  # clamped
        assert all(info.started is not None and info.started >= before - 3600 for info in runs[:1])
