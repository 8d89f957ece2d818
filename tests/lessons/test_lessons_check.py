"""Lessons that cannot lie: each lesson's claims are data (engine.core.lesson_claims), judged
(engine.lessons.judging) against run folders (engine.lessons.check), and ``python -m engine lessons check
--short`` runs every lesson's short presets."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from engine import experiments
from engine.cli import main
from engine.core.lesson_claims import Claim
from engine.lessons import check as lessons_check
from engine.lessons import presets
from engine.lessons.check import read_trace
from engine.lessons.judging import (
    FAIL,
    MISSING,
    ONE_SEED,
    PAPER,
    PASS,
    VACUOUS,
    WITHOUT_TRAINING,
    Trace,
    holds,
    judge,
    pooled_sd,
)


def _claim(expect: str, **fields) -> Claim:
    return Claim("P", "a", "m", expect, "text", **fields)


def _trace(*values: float, other: tuple[float, ...] = (), summary: dict | None = None) -> Trace:
    columns = {"m": tuple((float(step), value) for step, value in enumerate(values))}
    if other:
        columns["o"] = tuple((float(step), value) for step, value in enumerate(other))
    return Trace(columns, summary or {})


@pytest.mark.parametrize(
    ("expect", "fields", "a", "b", "expected"),
    [
        ("rises", {}, [_trace(1.0, 1.5)], None, True),
        ("rises", {"by": 0.5}, [_trace(1.0, 1.5)], None, False),  # must rise by more than `by`
        ("rises", {}, [_trace(1.0, 1.0)], None, False),
        ("falls", {"by": 0.1}, [_trace(1.0, 0.8)], None, True),
        ("falls", {}, [_trace(1.0, 1.2)], None, False),
        ("below", {"than": "b"}, [_trace(0.0, 1.0)], [_trace(5.0, 2.0)], True),
        ("below", {"than": "b", "factor": 0.5}, [_trace(0.0, 1.0)], [_trace(5.0, 2.0)], False),  # 1 < 1
        ("below", {"than": "b", "by": 0.5}, [_trace(0.0, 1.0)], [_trace(5.0, 1.4)], False),
        ("above", {"than": "b"}, [_trace(0.0, 3.0)], [_trace(5.0, 2.0)], True),
        ("above", {"than": "b", "by": 1.0}, [_trace(0.0, 3.0)], [_trace(5.0, 2.0)], False),
        # seeds: the mean difference must exceed twice the pooled sd of the two samples
        ("rises", {}, [_trace(1.0, 1.2), _trace(1.0, 1.3), _trace(1.0, 1.25)], None, True),
        ("rises", {}, [_trace(1.0, 1.5), _trace(1.0, 0.8), _trace(1.0, 1.3)], None, False),
        ("above", {"than": "b"}, [_trace(0, 3.0), _trace(0, 3.1)], [_trace(0, 2.0), _trace(0, 2.9)], False),
        ("above", {"than": "b"}, [_trace(0, 3.0), _trace(0, 3.1)], [_trace(0, 2.0), _trace(0, 2.1)], True),
        # monotone: Spearman of the value against the step, in every seed
        ("monotone", {"way": "rises"}, [_trace(1, 2, 3, 4, 5)], None, True),
        ("monotone", {"way": "rises"}, [_trace(1, 2, 3, 4, 5), _trace(1, 3, 2, 5, 4)], None, False),
        ("monotone", {"way": "falls"}, [_trace(5, 4, 3, 2, 1)], None, True),
        ("monotone", {"way": "falls"}, [_trace(1, 5)], None, None),  # two values: no shape
        ("monotone", {"way": "rises", "share": 0.75}, [_trace(1, 2, 3, 2.5, 4)], None, True),  # 3 of 4
        ("monotone", {"way": "rises", "share": 0.8}, [_trace(1, 2, 3, 2.5, 4)], None, False),
        # co-moves: Spearman of the measure against the other one
        ("co-moves", {"way": "opposite", "other": "o"}, [_trace(1, 2, 3, 4, other=(4, 3, 2, 1))], None, True),
        ("co-moves", {"way": "same", "other": "o"}, [_trace(1, 2, 3, 4, other=(4, 3, 2, 1))], None, False),
        # correlates: r and rho from summary.json, both beyond `by`
        (
            "correlates",
            {"way": "opposite", "by": 0.8},
            [_trace(1, 2, summary={"m_pearson_r": -0.9, "m_spearman_rho": -1.0})],
            None,
            True,
        ),
        (
            "correlates",
            {"way": "opposite", "by": 0.8},
            [_trace(1, 2, summary={"m_pearson_r": -0.9, "m_spearman_rho": -0.05})],
            None,
            False,
        ),
        ("correlates", {"way": "opposite", "by": 0.8}, [_trace(1, 2)], None, None),
    ],
)
def test_a_claim_holds_exactly_as_its_rule_says(expect, fields, a, b, expected) -> None:
    measured = {"a": a} if b is None else {"a": a, "b": b}
    assert holds(_claim(expect, **fields), measured) is expected


def test_the_pooled_sd_is_that_of_the_two_samples_and_zero_for_one_seed() -> None:
    assert pooled_sd([1.0], [2.0]) == 0.0
    assert pooled_sd([1.0, 3.0], [2.0, 2.0]) == pytest.approx((2.0 / 2) ** 0.5)


def test_a_claim_that_holds_on_the_first_rows_alone_fails_as_vacuous() -> None:
    """An order that already holds before any training (the first logged row as if it were the last) says
    nothing about training: it fails the check, and says so."""
    before_and_after = {"a": [_trace(0.1, 0.1)], "b": [_trace(1.0, 2.0)]}
    verdict = judge(_claim("below", than="b"), before_and_after)
    assert verdict.holds and verdict.vacuous and verdict.outcome == VACUOUS and verdict.fails
    assert "on the first rows alone" in verdict.measured
    trained = judge(_claim("below", than="b"), {"a": [_trace(1.0, 0.1)], "b": [_trace(1.0, 2.0)]})
    assert trained.outcome == PASS and not trained.vacuous
    for expect, fields in (("rises", {}), ("monotone", {"way": "rises"})):
        assert not judge(_claim(expect, **fields), {"a": [_trace(1, 2, 3)]}).vacuous


def test_a_claim_never_measured_is_missing_and_fails_only_when_it_is_the_labs() -> None:
    lab = judge(_claim("rises"), {"a": [Trace({})]})
    assert lab.outcome == MISSING and lab.holds is None and lab.fails
    compared = judge(_claim("below", than="b"), {"a": [_trace(1.0, 1.0)]})
    assert compared.outcome == MISSING and "b: not measured" in compared.measured
    paper = judge(_claim("rises", source="paper"), {"a": [_trace(1.0, 0.5)]})
    assert paper.outcome == PAPER and not paper.fails and "does not go the paper's way here" in paper.measured
    assert "1 → 0.5" in paper.measured


@pytest.mark.parametrize(
    "fields",
    [
        {"expect": "climbs"},
        {"expect": "steady"},  # holds before any training: not a rule
        {"expect": "below"},  # an order without the run it compares with
        {"expect": "rises", "than": "b"},
        {"expect": "rises", "source": "blog"},
        {"expect": "rises", "by": -1.0},
        {"expect": "monotone"},  # which way?
        {"expect": "monotone", "way": "opposite"},
        {"expect": "co-moves", "way": "same"},  # with which measure?
        {"expect": "rises", "way": "rises"},
        {"expect": "monotone", "way": "rises", "share": 1.5},
    ],
)
def test_a_malformed_claim_is_refused_when_declared(fields) -> None:
    with pytest.raises(ValueError):
        Claim("P", "a", "m", text="text", **fields)


def test_read_trace_reads_each_columns_finite_values_by_step_and_the_summary(tmp_path: Path) -> None:
    (tmp_path / "metrics.csv").write_text("step,loss,alignment\n0,,0.3\n1,0.9,\n2,0.5,0.1\n3,0.4,\n")
    (tmp_path / "summary.json").write_text(json.dumps({"alignment_pearson_r": -0.5}))
    trace = read_trace(tmp_path)
    assert trace.columns["alignment"] == ((0.0, 0.3), (2.0, 0.1))
    assert trace.values("loss") == [0.9, 0.5, 0.4] and trace.values("uniformity") == []
    assert trace.summary == {"alignment_pearson_r": -0.5}
    assert trace.untrained().columns["loss"] == ((1.0, 0.9),) and trace.untrained().summary == {}
    assert read_trace(tmp_path / "absent") == Trace({}, {})


def test_every_lesson_claim_names_a_preset_its_runs_and_a_column_they_log() -> None:
    """A claim that names nothing real could never be checked: each names a preset, runs of it and a column
    of those runs' metrics.csv; every experiment's lesson states some claims, the lab's own among them."""
    found = presets.presets()
    claims = lessons_check.all_claims()
    for kind, lesson in experiments.lessons().items():
        assert any(claim.source == "lab" for claim in lesson.claims), kind
    for claim in claims:
        preset = found[claim.preset]
        queued = {run.name: run for run in presets.queue(preset, short=True)}
        for run in claim.runs:
            assert run in queued, (claim.text, run)
            experiment = experiments.EXPERIMENTS[queued[run].kind]
            config = experiment.make_config(**queued[run].fields)
            assert claim.measure in experiment.columns_for(config), (claim.text, claim.measure)
        assert preset.short, f"{claim.preset} declares no short version"


def test_judge_all_and_the_report_name_each_failing_claim_in_one_line(tmp_path: Path) -> None:
    for run, alignment in (("a", "0.3\n1,0.1"), ("b", "0.3\n1,0.2")):
        (tmp_path / run).mkdir()
        (tmp_path / run / "metrics.csv").write_text(f"step,alignment\n0,{alignment}\n")
    folders = {("P", "a"): [tmp_path / "a"], ("P", "b"): [tmp_path / "b"]}
    claims = [
        Claim("P", "a", "alignment", "falls", "a's alignment falls"),
        Claim("P", "a", "alignment", "above", "a ends above b", than="b"),
        Claim("P", "b", "alignment", "rises", "b's rises (the paper)", source="paper"),
    ]
    verdicts = lessons_check.judge_all(claims, folders)
    assert [v.outcome for v in verdicts] == [PASS, FAIL, PAPER]
    lines = lessons_check.report(verdicts)
    assert (
        "\n1 of 2 lab claims hold on one seed; 0 hold without training; "
        "1 paper claims shown (compared on this start, not checked)"
    ) in lines
    assert f"({WITHOUT_TRAINING})" in lines  # what "hold without training" means, said once
    assert [line for line in lines if line.startswith("FAIL:")] == [
        f"FAIL: P / a / alignment: a ends above b — a: 0.3 → 0.1; b: 0.3 → 0.2; {ONE_SEED}"
    ]


def test_one_seed_is_worded_alike_on_every_line_and_never_as_pooled_sd(tmp_path: Path) -> None:
    """Issue 56: with one seed no line names a pooled sd; every verdict (PASS, FAIL, the paper's) carries the
    one-seed caveat; a paper's claim never says it holds; with two seeds the margin is named again."""
    for run, rows in (
        ("a", "0.3\n1,0.1"),
        ("b", "0.3\n1,0.2"),
        ("a1", "0.31\n1,0.12"),
        ("b1", "0.3\n1,0.21"),
    ):
        (tmp_path / run).mkdir()
        (tmp_path / run / "metrics.csv").write_text(f"step,alignment\n0,{rows}\n")
    claims = [
        Claim("P", "a", "alignment", "falls", "a's alignment falls"),
        Claim("P", "a", "alignment", "above", "a ends above b", than="b"),
        Claim("P", "b", "alignment", "rises", "b's rises (the paper)", source="paper"),
        Claim("P", "a", "alignment", "below", "a ends below b (the paper)", than="b", source="paper"),
    ]
    one = {("P", "a"): [tmp_path / "a"], ("P", "b"): [tmp_path / "b"]}
    lines = lessons_check.report(lessons_check.judge_all(claims, one))
    measured = [line for line in lines if line.startswith("      ")]
    assert len(measured) == 4 and all(
        line.endswith(ONE_SEED) or f"; {ONE_SEED})" in line for line in measured
    )
    assert not any("pooled sd" in line for line in lines)
    papers = [line for line in lines if "(paper)" in line or "(compared on" in line]
    assert papers and not any("holds here" in line for line in papers)
    two = {("P", "a"): [tmp_path / "a", tmp_path / "a1"], ("P", "b"): [tmp_path / "b", tmp_path / "b1"]}
    lines = lessons_check.report(lessons_check.judge_all(claims, two))
    assert any("2 pooled sd of the seeds" in line for line in lines)
    assert not any(ONE_SEED in line for line in lines) and not any("on one seed" in line for line in lines)


def test_runs_with_the_same_config_share_one_run_folder(tmp_path: Path, monkeypatch) -> None:
    """The plain JEPA run of the regulariser preset is the JEPA run of the collapse preset: run once."""
    ran: list[Path] = []
    monkeypatch.setattr(lessons_check, "_run_all", lambda planned, *_: ran.extend(r.out for r in planned))
    collapse, regularised = "Does JEPA collapse?", "JEPA + SIGReg / + VICReg"
    folders = lessons_check.run_presets([collapse, regularised], tmp_path, short=True, say=lambda _: None)
    assert len(folders) == 7 and len(ran) == 6
    assert folders[(regularised, "jepa")] == folders[(collapse, "jepa (ema + predictor + stop-grad)")]


def test_seeds_run_each_run_once_per_seed_into_its_own_folder(tmp_path: Path, monkeypatch) -> None:
    ran: list[Path] = []
    monkeypatch.setattr(lessons_check, "_run_all", lambda planned, *_: ran.extend(r.out for r in planned))
    folders = lessons_check.run_presets(["Demo: clusters form"], tmp_path, short=True, seeds=3, say=print)
    (seeded,) = folders.values()
    assert [folder.name for folder in seeded] == [
        "demo-clusters",
        "demo-clusters-seed-1",
        "demo-clusters-seed-2",
    ]
    assert ran == seeded


def test_workers_train_the_planned_runs_side_by_side(tmp_path: Path, monkeypatch) -> None:
    """``--workers 2``: the runs go to engine.runlog.side_by_side, two at a time, each planned run once."""
    seen: list[tuple[list[str], int]] = []

    def side_by_side(planned, workers, cpus):
        seen.append(([run.out.name for run in planned], workers))
        return [{"state": "finished"} for _ in planned]

    monkeypatch.setattr(lessons_check, "run_side_by_side", side_by_side)
    folders = lessons_check.run_presets(["Does JEPA collapse?"], tmp_path, short=True, workers=2, say=print)
    ((names, workers),) = seen
    assert workers == 2 and len(names) == len(set(names)) == len(folders) == 4


def test_the_cli_refuses_negative_workers_in_one_line(capsys) -> None:
    assert main(["lessons", "check", "--short", "--workers", "-1"]) == 2
    refused = "lessons check: --workers must be 0 (one per CPU) or more, got -1"
    assert capsys.readouterr().err.strip() == refused


def test_the_cli_refuses_an_unknown_preset_and_fails_when_no_claim_was_checked(capsys) -> None:
    assert main(["lessons", "check", "--preset", "No such preset"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "lessons check: no preset named 'No such preset'"
    assert main(["lessons", "check", "--preset", "Isotropy paper, setup (i)"]) == 1  # a preset with no claims
    assert "nothing was checked" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 11 short runs: minutes on a loaded 2-core machine
def test_lessons_check_short_runs_every_lesson_preset_and_every_lab_claim_holds(
    tmp_path: Path, capsys
) -> None:
    """The command itself, on the short presets, through the ordinary run machinery: exit 0, each claim
    printed with what was measured, and real run folders."""
    code = main(["lessons", "check", "--short", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    claims = lessons_check.all_claims()
    assert printed.count(f"[{PASS}]") == sum(claim.source == "lab" for claim in claims)
    assert printed.count(f"[{PAPER}]") == sum(claim.source == "paper" for claim in claims)
    assert "FAIL" not in printed
    lab = sum(claim.source == "lab" for claim in claims)
    assert f"{lab} of {lab} lab claims hold on one seed; 0 hold without training" in printed
    finished = [folder for folder in tmp_path.glob("*/*") if (folder / "summary.json").is_file()]
    assert len(finished) >= len({claim.preset for claim in claims})


def test_a_short_version_changes_no_ablation_of_its_runs() -> None:
    """The short version may shorten a run, never change what it tests: no field that a run sets."""
    for preset in presets.presets().values():
        for overrides in preset.runs.values():
            assert not set(preset.short) & set(overrides), preset.name
        assert dataclasses.is_dataclass(preset)


def test_reuse_keeps_only_a_finished_run_with_the_same_config(tmp_path: Path) -> None:
    settled = {"kind": "probe", "steps": 3, "lr": 0.001, "data": "demo"}
    (tmp_path / "config.json").write_text(json.dumps(settled))
    (tmp_path / "status.json").write_text(json.dumps({"state": "finished"}))
    assert lessons_check._finished_with(tmp_path, settled)
    assert not lessons_check._finished_with(tmp_path, {**settled, "steps": 4})
    (tmp_path / "status.json").write_text(json.dumps({"state": "failed"}))
    assert not lessons_check._finished_with(tmp_path, settled)
    (tmp_path / "config.json").write_text("{not json")
    assert not lessons_check._finished_with(tmp_path, settled)
    assert not lessons_check._finished_with(tmp_path / "absent", settled)


def test_a_relative_data_dir_reaches_the_runs_absolute_so_reuse_finds_them_from_anywhere(
    tmp_path: Path, monkeypatch
) -> None:
    """A check run with ``--data-dir ../shared/data`` and reused with ``/work/shared/data`` (or from another
    folder) once found no config equal and trained every run again, over the finished ones."""
    seen: list[dict] = []

    def checked(out, **kwargs):
        seen.append(kwargs["settings"])
        return [], {}

    monkeypatch.setattr(lessons_check, "checked", checked)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    main(["lessons", "check", "--short", "--data-dir", "data", "--preset", "Does JEPA collapse?"])
    assert seen == [{"data_dir": str(tmp_path.resolve() / "data")}]
