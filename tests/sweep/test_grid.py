"""``--grid KNOB=V1,V2``: values read through each knob's declaration; every bad grid is one line naming the
option, on the command line too (exit 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import cli
from engine.errors import ConfigError
from engine.probe.config import ProbeConfig
from engine.simcse.train import SimCSEConfig
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
