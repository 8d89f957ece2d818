"""A comparison judged on one seed (engine/lessons/judging.py): its sd is 0, so the 2-pooled-sd margin
cannot apply, and its verdict says "one seed: no margin", never "holds"."""

from __future__ import annotations

from engine.core.lesson_claims import Claim
from engine.lessons.judging import ONE_SEED, PAPER, PASS, Trace, judge


def trace(*values: float) -> Trace:
    return Trace({"m": tuple((float(step), value) for step, value in enumerate(values))})


def beats(source: str) -> Claim:
    return Claim("P", "dropout", "m", "above", "dropout beats no dropout", than="none", source=source)


def test_a_papers_comparison_on_one_seed_says_no_margin_not_holds() -> None:
    verdict = judge(beats("paper"), {"dropout": [trace(0.5, 0.9133)], "none": [trace(0.5, 0.9129)]})
    assert verdict.outcome == PAPER
    assert verdict.measured.endswith(f"({ONE_SEED})") and "holds" not in verdict.measured


def test_a_labs_comparison_on_one_seed_says_no_margin() -> None:
    verdict = judge(beats("lab"), {"dropout": [trace(0.5, 0.95)], "none": [trace(0.5, 0.80)]})
    assert verdict.outcome == PASS and ONE_SEED in verdict.measured
    rises = judge(Claim("P", "dropout", "m", "rises", "it rises"), {"dropout": [trace(0.1, 0.9)]})
    assert ONE_SEED in rises.measured


def test_with_seeds_the_margin_applies_and_it_may_hold() -> None:
    seeds = {"dropout": [trace(0.5, 0.95), trace(0.5, 0.96)], "none": [trace(0.5, 0.80), trace(0.5, 0.81)]}
    verdict = judge(beats("paper"), seeds)
    assert verdict.measured.endswith("(holds here)") and ONE_SEED not in verdict.measured
    shape = judge(
        Claim("P", "dropout", "m", "monotone", "it rises", way="rises"), {"dropout": [trace(1, 2, 3)]}
    )
    assert ONE_SEED not in shape.measured  # a shape has no margin to lack


def test_a_comparison_that_goes_the_other_way_still_does_not_hold() -> None:
    verdict = judge(beats("paper"), {"dropout": [trace(0.5, 0.80)], "none": [trace(0.5, 0.95)]})
    assert verdict.measured.endswith("(does not hold here)")


def test_a_pages_charts_put_its_lessons_measures_first() -> None:
    from engine.core.lesson_claims import lesson_first

    claims = [
        Claim("P", "a", m, "rises", "t") for m in ("isoscore", "silhouette", "isoscore", "accuracy", "gone")
    ]
    page = ("loss", "accuracy", "isoscore", "silhouette", "rankme")
    assert lesson_first(claims, page) == ["isoscore", "silhouette", "accuracy", "loss", "rankme"]
    assert lesson_first((), page) == list(page)
