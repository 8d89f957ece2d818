"""The view switches do what they say (SimCSE Tables 1 and 3)."""

from __future__ import annotations

from engine.simcse.augmentations import FIGURE2_RUNS, PAPER_ROWS, VIEWS, ViewPlan
from engine.training.augment import step_rng

SENTENCE = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "today"]


def test_second_view_only_is_augmented() -> None:
    plan = ViewPlan(augment="delete-one-word")
    texts = [" ".join(SENTENCE)]
    assert len(plan.second_view(texts, step_rng(0, 1))[0].split()) == len(SENTENCE) - 1
    assert not plan.one_forward and ViewPlan(same_mask=True).one_forward


def test_registry_entries_are_documented_and_map_to_config_fields() -> None:
    from engine.simcse.config import SimCSEConfig

    for name, switch in VIEWS.items():
        assert switch.name == name and switch.explanation and "\n" not in switch.explanation
        SimCSEConfig(**switch.overrides())  # every switch is a valid config on its own
    assert VIEWS["crop"].overrides(k=0.2) == {"augment": "crop", "augment_rate": 0.2}
    assert VIEWS["dropout"].overrides(p=0.0) == {"dropout": 0.0}


def test_paper_rows_are_expressible() -> None:
    from engine.simcse.config import SimCSEConfig

    assert list(FIGURE2_RUNS) == ["unsup-simcse", "no-dropout", "fixed-0.1", "delete-one-word"]
    for name, row in PAPER_ROWS.items():
        assert SimCSEConfig(**row["overrides"]).mode == "unsup"
        assert isinstance(row["paper"], float), name
    no_drop = SimCSEConfig(**PAPER_ROWS["delete-one-word-no-dropout"]["overrides"])
    assert no_drop.dropout == 0.0 and no_drop.augment == "delete-one-word"
    assert SimCSEConfig(**FIGURE2_RUNS["fixed-0.1"]).same_mask
