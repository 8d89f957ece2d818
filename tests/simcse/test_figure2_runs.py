"""``python -m engine.simcse.figure2_runs``: the four runs of SimCSE's Figure 2 as validated configs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.core.errors import EmbedlabError
from engine.simcse.figure2_runs import figure2_configs, longest_first, main, plan_workers


def test_figure2_presets_are_four_valid_configs() -> None:
    configs = figure2_configs({"data_dir": "/d", "steps": 5})
    assert list(configs) == ["unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word"]
    assert configs["no-dropout"].dropout == 0.0 and configs["fixed-0.1"].same_mask
    assert (
        configs["delete-one-word"].augment == "delete-one-word" and configs["delete-one-word"].dropout == 0.1
    )
    assert all(c.steps == 5 for c in configs.values())


def test_a_subset_of_runs_and_unknown_names() -> None:
    assert list(figure2_configs({"steps": 5}, ["fixed-0.1"])) == ["fixed-0.1"]
    with pytest.raises(EmbedlabError, match=r"unknown Figure-2 run\(s\) \['dropout-0.3'\]"):
        figure2_configs({"steps": 5}, ["dropout-0.3"])


def test_workers_share_the_cpus_and_never_outnumber_the_runs() -> None:
    assert plan_workers(4, 0, 2) == (2, 1)  # one per CPU
    assert plan_workers(4, 0, 16) == (4, 4)  # at most one per run
    assert plan_workers(4, 1, 2) == (1, 2)
    assert plan_workers(1, 3, 2) == (1, 2)
    assert plan_workers(4, 3, 2) == (3, 1)  # more processes than CPUs: still one thread each


def test_the_same_mask_run_goes_last() -> None:
    configs = figure2_configs({"data_dir": "/d", "steps": 5})
    order = longest_first(configs)
    assert order[-1] == "fixed-0.1" and sorted(order) == sorted(configs)
    assert order[:3] == ["unsup-simcse", "no-dropout", "delete-one-word"]  # stable among equals


def test_runs_side_by_side_give_the_runs_one_after_another(
    tmp_path: Path, shared_data: Path, tiny_dir: Path, capfd: pytest.CaptureFixture
) -> None:
    """Two worker processes (one thread each) against one process: every run's rows, to float rounding
    (thread counts change the order of sums), and every run finished (the tiny test encoder: the runs'
    scheduling is under test, not the encoder)."""
    common = [
        "--data-dir",
        str(shared_data),
        "--encoder",
        str(tiny_dir),
        "--steps",
        "2",
        "--eval-every",
        "2",
        "--eval-limit",
        "24",
        "--batch-size",
        "8",
        "--runs",
        "fixed-0.1",
        "delete-one-word",
    ]
    assert main([*common, "--out", str(tmp_path / "apart"), "--workers", "1"]) == 0
    alone = json.loads(capfd.readouterr().out)
    assert main([*common, "--out", str(tmp_path / "together"), "--workers", "2"]) == 0
    captured = capfd.readouterr()  # the worker processes' lines too
    together = json.loads(captured.out)
    assert "2 at a time, 1 thread(s) each" in captured.err
    assert captured.err.count("[figure2] fixed-0.1") == captured.err.count("[figure2] delete-one-word") == 1
    assert list(together) == list(alone) == ["fixed-0.1", "delete-one-word"]
    for name in alone:
        assert together[name]["state"] == alone[name]["state"] == "finished"
        a = pd.read_csv(tmp_path / "apart" / name / "metrics.csv")
        b = pd.read_csv(tmp_path / "together" / name / "metrics.csv")
        assert list(a.columns) == list(b.columns) and len(a) == len(b) == 3
        for column in ("loss", "sts_spearman", "alignment", "uniformity", "isoscore"):
            np.testing.assert_allclose(
                b[column].to_numpy(float),
                a[column].to_numpy(float),
                rtol=1e-3,
                atol=1e-3,
                err_msg=f"{name}: {column}",
            )


def test_negative_workers_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["--data-dir", str(tmp_path), "--out", str(tmp_path / "o"), "--workers", "-1"]) == 2
    assert (
        capsys.readouterr().err.strip().splitlines()[-1]
        == "error: --workers must be 0 (one per CPU) or more, got -1"
    )


def test_the_flags_are_the_knobs_with_figure2s_defaults() -> None:
    """figure2_runs' flags are made from SimCSE's knob declarations (type, choices, help); only the defaults
    it declares (the [CLS] start, 250 steps) differ."""
    from engine.core import flags
    from engine.core.knobs import knob_of
    from engine.simcse.config import SimCSEConfig
    from engine.simcse.figure2_runs import DEFAULTS, KNOBS, build_parser

    actions = {action.dest: action for action in build_parser()._actions}
    assert DEFAULTS == {"steps": 250, "encoder": "minilm-cls"}
    for name in KNOBS:
        item, action = knob_of(SimCSEConfig, name), actions[name]
        assert action.option_strings == [item.flag] and action.type is item.type, name
        assert tuple(action.choices or ()) == tuple(item.choices or ()), name
        assert action.default == DEFAULTS.get(name, item.shown_default()), name
        if name not in DEFAULTS:
            assert action.help == flags.flag_help(item), name
    assert actions["data_dir"].required
