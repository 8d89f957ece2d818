"""``--grid KNOB=V1,V2``: values read through each knob's declaration; every bad grid is one line naming the
option, on the command line too (exit 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from engine import cli
from engine.core.errors import ConfigError
from engine.groups.format import grid_members
from engine.probe.config import ProbeConfig
from engine.simcse.config import SimCSEConfig
from engine.sweep.grid import parse_grid


def test_values_take_each_knobs_type_in_the_order_given() -> None:
    grid = parse_grid(ProbeConfig, ["lr=1e-3,0.01", "--sample-size=0,500", "fixed_sample=on,false"])
    assert grid == {"lr": [0.001, 0.01], "sample_size": [None, 500], "fixed_sample": [True, False]}
    assert list(grid) == ["lr", "sample_size", "fixed_sample"]
    assert parse_grid(ProbeConfig, ["objective=triplet,classifier", "vectors=none,v.txt"]) == {
        "objective": ["triplet", "classifier"],
        "vectors": [None, "v.txt"],
    }
    assert parse_grid(SimCSEConfig, ["same-mask=true,false", "dropout=0,0.1"]) == {
        "same_mask": [True, False],
        "dropout": [0.0, 0.1],
    }


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("lr", "--grid lr: expected KNOB=V1,V2"),
        ("=1,2", "--grid =1,2: expected KNOB=V1,V2"),
        ("nope=1", "--grid nope=1: no knob 'nope'; the knobs are data,"),
        ("steps=ten", "--grid steps=ten: steps must be a whole number, got 'ten'"),
        ("steps=0", "--grid steps=0: steps must be"),
        ("lr=0", "--grid lr=0: learning rate must be a number in (0, 10], got 0.0"),
        ("objective=pca", "--grid objective=pca: objective must be one of classifier, triplet"),
        ("fixed_sample=maybe", "--grid fixed_sample=maybe: fixed_sample must be true or false"),
        ("lr=0.1,0.1", "--grid lr=0.1,0.1: a value is given twice"),
    ],
)
def test_a_bad_grid_is_one_line_naming_the_option(option: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_grid(ProbeConfig, [option])
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_knob_given_twice_or_too_many_trials_is_refused() -> None:
    with pytest.raises(ConfigError, match="^--grid lr=1: lr is given twice$"):
        parse_grid(ProbeConfig, ["lr=0.1", "lr=1"])
    many = ",".join(str(step) for step in range(1, 101))
    with pytest.raises(ConfigError, match="^--grid: 1,000,000 trials is more than 10,000$"):
        parse_grid(
            ProbeConfig,
            [f"steps={many}", f"metric_every={many}", f"snapshot_limit={many.replace('1,', '', 1)},200"],
        )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--grid", "lr=x"], "error: --grid lr=x: lr must be a number, got 'x'"),
        ([], "error: --grid: give at least one knob to vary"),
        (["--grid", "seed=1,2", "--seeds", "2"], "error: --seeds: the seed is already a --grid knob"),
        (["--seeds", "2", "--retry-failed"], "error: --retry-failed reruns the group as it was made"),
        (["--grid", "steps=1", "--limit", "-3"], "error: limit must be"),
    ],
)
def test_the_sweep_command_answers_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    code = cli.main(["sweep", "probe", "--data", "demo", *extra, "--out", str(tmp_path / "g")])
    error = capsys.readouterr().err.strip()
    assert code == 2 and error.startswith(message) and "\n" not in error, error
    assert not (tmp_path / "g").exists()


def test_retrying_a_group_that_does_not_exist_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(["sweep", "probe", "--retry-failed", "--out", str(tmp_path / "none")]) == 2
    assert "no group.json (not a group folder)" in capsys.readouterr().err


# ---------------------------------------------------------------- issue 37, item 6: grid values and their ids
LEARNING_RATES = st.floats(min_value=1e-12, max_value=10.0, allow_nan=False, allow_infinity=False)


@given(st.lists(LEARNING_RATES, min_size=1, max_size=6, unique=True))
@examples(max_examples=300)
def test_distinct_grid_values_give_distinct_ids_that_read_back(values: list[float]) -> None:
    grid = parse_grid(ProbeConfig, ["lr=" + ",".join(map(repr, values))])
    assert grid == {"lr": values}
    ids = [member.id for member in grid_members(grid)]
    assert len(set(ids)) == len(ids)
    assert [float(member_id.removeprefix("lr-")) for member_id in ids] == values


@given(st.lists(st.text(alphabet="ab/:-_. ", min_size=1, max_size=4), min_size=2, max_size=5, unique=True))
def test_text_values_give_distinct_ids_or_one_line_naming_both(values: list[str]) -> None:
    try:
        members = grid_members({"data": values})
    except ConfigError as err:  # two values that are one file name
        message = str(err)
        assert message.startswith("--grid: data=") and "the same name" in message and "\n" not in message
        assert sum(f"data={value!r}" in message for value in values) == 2
        return
    assert len({member.id for member in members}) == len(values)


def test_close_floats_are_two_runs_and_a_real_collision_names_both_values(tmp_path: Path) -> None:
    grid = parse_grid(ProbeConfig, ["lr=0.1234567,0.1234568", "steps=1"])
    assert [m.id for m in grid_members(grid)] == ["lr-0.1234567_steps-1", "lr-0.1234568_steps-1"]
    assert [m.id for m in grid_members({"lr": [0.001, 1e-5, 1.0]})] == ["lr-0.001", "lr-1e-05", "lr-1"]
    with pytest.raises(ConfigError, match=r"^--grid: data='a/b' and data='a:b' would give two runs the same"):
        grid_members({"data": ["a/b", "a:b"]})


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--grid", "data=demo,{missing}"], "error: --grid data={missing}: no built-in data set or file"),
        (["--data", "{missing}", "--grid", "lr=0.1"], "error: --data: no built-in data set or file"),
        (["--data", "demo", "--grid", "vectors={missing}"], "error: --grid vectors={missing}: no file"),
    ],
)
def test_a_missing_data_file_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    missing = str(tmp_path / "missing.csv")
    extra = [part.format(missing=missing) for part in extra]
    assert cli.main(["sweep", "probe", "--steps", "1", *extra, "--out", str(tmp_path / "g")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(message.format(missing=missing)) and "\n" not in error, error
    assert not (tmp_path / "g").exists()
