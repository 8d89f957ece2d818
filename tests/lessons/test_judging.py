"""One wording for one seed (engine/lessons/judging.py, issue 56): measured on one seed, every verdict,
positive or negative, the lab's or the paper's, ends with the same caveat (no spread, so no margin); a
paper's claim says which way this start went, compared and not checked, never that it "holds"; with seeds the
2-pooled-sd margin applies and no caveat is printed."""

from __future__ import annotations

from engine.core.lesson_claims import Claim
from engine.lessons.judging import AGAINST, ALONG, COMPARED, FAIL, ONE_SEED, PAPER, PASS, Trace, judge


def trace(*values: float) -> Trace:
    return Trace({"m": tuple((float(step), value) for step, value in enumerate(values))})


def beats(source: str) -> Claim:
    return Claim("P", "dropout", "m", "above", "dropout beats no dropout", than="none", source=source)


def test_a_papers_comparison_on_one_seed_is_compared_with_its_caveat_either_way() -> None:
    along = judge(beats("paper"), {"dropout": [trace(0.5, 0.9133)], "none": [trace(0.5, 0.9129)]})
    against = judge(beats("paper"), {"dropout": [trace(0.5, 0.80)], "none": [trace(0.5, 0.95)]})
    assert along.outcome == against.outcome == PAPER
    assert along.measured.endswith(f"({COMPARED}: {ALONG}; {ONE_SEED})")
    assert against.measured.endswith(f"({COMPARED}: {AGAINST}; {ONE_SEED})")
    assert all("hold" not in v.measured for v in (along, against))  # no verdict as if checked


def test_a_labs_verdict_on_one_seed_carries_the_caveat_positive_or_negative() -> None:
    passed = judge(beats("lab"), {"dropout": [trace(0.5, 0.95)], "none": [trace(0.5, 0.80)]})
    failed = judge(beats("lab"), {"dropout": [trace(0.5, 0.80)], "none": [trace(0.5, 0.95)]})
    rises = judge(Claim("P", "dropout", "m", "rises", "it rises"), {"dropout": [trace(0.1, 0.9)]})
    shape = judge(
        Claim("P", "dropout", "m", "monotone", "it rises", way="rises"), {"dropout": [trace(1, 2, 3)]}
    )
    assert [passed.outcome, failed.outcome, rises.outcome, shape.outcome] == [PASS, FAIL, PASS, PASS]
    assert all(v.measured.endswith(f"; {ONE_SEED}") for v in (passed, failed, rises, shape))
    assert all(v.seeds == 1 for v in (passed, failed, rises, shape))


def test_with_seeds_the_margin_applies_and_no_caveat_is_printed() -> None:
    seeds = {"dropout": [trace(0.5, 0.95), trace(0.5, 0.96)], "none": [trace(0.5, 0.80), trace(0.5, 0.81)]}
    verdict = judge(beats("paper"), seeds)
    assert verdict.measured.endswith(f"({COMPARED}: {ALONG})") and ONE_SEED not in verdict.measured
    lab = judge(beats("lab"), seeds)
    assert lab.outcome == PASS and ONE_SEED not in lab.measured and "2 × pooled sd" in lab.measured


def test_a_claim_not_measured_has_no_caveat() -> None:
    verdict = judge(beats("paper"), {"dropout": [trace(0.5, 0.9)]})
    assert verdict.measured.endswith("(not measured)")


def test_a_pages_charts_put_its_lessons_measures_first() -> None:
    from engine.core.lesson_claims import lesson_first

    claims = [
        Claim("P", "a", m, "rises", "t") for m in ("isoscore", "silhouette", "isoscore", "accuracy", "gone")
    ]
    page = ("loss", "accuracy", "isoscore", "silhouette", "rankme")
    assert lesson_first(claims, page) == ["isoscore", "silhouette", "accuracy", "loss", "rankme"]
    assert lesson_first((), page) == list(page)
