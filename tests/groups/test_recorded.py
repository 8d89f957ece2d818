"""A preset's recorded runs read from their shipped folders (engine.groups.recorded): one group per run of the
preset with its seeds' folders (the runs the page draws), when and how they were made; a folder missing,
damaged or full of random bytes gives a group or one DataError line, never another exception."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.declaration import Preset, Recorded
from engine.core.errors import DataError
from engine.groups.recorded import read_recorded

RECORDED = Recorded(folder="cache/check", seeds=2, command="python -m engine lessons check --seeds 2")
PRESET = Preset("My Preset", "simcse", "two runs", runs={"a": {}, "b": {}}, recorded=RECORDED)
STARTED = 1796210089.5  # 2026-12-02 UTC
KEYS = ("started", "ended", "encoder", "steps", "kind", "x")


def write_run(folder: Path, metrics: str = "step,sts_spearman\n0,0.7\n10,0.8\n") -> None:
    folder.mkdir(parents=True)
    (folder / "metrics.csv").write_text(metrics)
    (folder / "config.json").write_text(json.dumps({"encoder": "minilm-cls", "steps": 10}))
    (folder / "status.json").write_text(json.dumps({"started": STARTED, "ended": STARTED + 3600}))
    (folder / "summary.json").write_text(json.dumps({"sts_spearman_end": 0.8}))


def test_each_run_is_a_group_of_its_seeds_folders_with_its_facts(tmp_path: Path) -> None:
    base = tmp_path / "cache" / "check" / "My-Preset"
    for name in ("a", "a-seed-1", "b"):
        write_run(base / name)
    group = read_recorded(PRESET, tmp_path)
    assert group.groups == {"a": [base / "a", base / "a-seed-1"], "b": [base / "b"]}
    assert group.folders == [base / "a", base / "a-seed-1", base / "b"]
    assert [len(frames) for frames in group.frames.values()] == [2, 1]
    assert group.summaries["b"] == [{"sts_spearman_end": 0.8}]
    assert (group.dates(), group.seeds, group.start, group.steps) == ("2026-12-02", 2, "minilm-cls", 10)
    caption = group.caption()
    for words in ("Recorded runs, not trained now", "2026-12-02", "2 seeds", "minilm-cls", RECORDED.command):
        assert words in caption


def test_no_recorded_runs_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no recorded runs of “My Preset”"):
        read_recorded(PRESET, tmp_path)
    with pytest.raises(DataError, match="has no recorded runs"):
        read_recorded(Preset("Plain", "simcse", "x", runs={"a": {}}), tmp_path)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=8,
)
FILE = st.binary(max_size=200) | JSON.map(lambda value: json.dumps(value).encode())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metrics=st.binary(max_size=300), status=FILE, config=FILE)
def test_damaged_files_give_a_group_or_one_line(metrics: bytes, status: bytes, config: bytes) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "cache" / "check" / "My-Preset" / "a"
        write_run(folder)
        (folder / "metrics.csv").write_bytes(metrics)
        (folder / "status.json").write_bytes(status)
        (folder / "config.json").write_bytes(config)
        try:
            group = read_recorded(PRESET, Path(root))
        except DataError as err:
            assert "\n" not in str(err)
            return
        assert group.caption() and list(group.groups) == ["a"]
