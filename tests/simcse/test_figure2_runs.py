"""``python -m engine.simcse.figure2_runs``: the four runs of SimCSE's Figure 2 as validated configs."""

from __future__ import annotations

import pytest

from engine.errors import EmbedlabError
from engine.simcse.figure2_runs import figure2_configs


def test_figure2_presets_are_four_valid_configs() -> None:
    configs = figure2_configs({"data_dir": "/d", "steps": 5})
    assert list(configs) == ["unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word"]
    assert configs["no-dropout"].dropout == 0.0 and configs["fixed-0.1"].same_mask
    assert configs["delete-one-word"].augment == "delete-one-word" and configs["delete-one-word"].dropout == 0.1
    assert all(c.steps == 5 for c in configs.values())


def test_a_subset_of_runs_and_unknown_names() -> None:
    assert list(figure2_configs({"steps": 5}, ["fixed-0.1"])) == ["fixed-0.1"]
    with pytest.raises(EmbedlabError, match=r"unknown Figure-2 run\(s\) \['dropout-0.3'\]"):
        figure2_configs({"steps": 5}, ["dropout-0.3"])
