"""Numbers in the lessons come from runs: every placeholder names a claim and a figure, every figure is
recorded (engine/lessons/results.json, written by ``python -m engine lessons check --record``), and no
lesson text types a digit that no claim fills."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine import experiments
from engine.core.lesson_claims import Claim
from engine.lessons import numbers as lesson_figures
from engine.lessons import texts as lessons
from engine.lessons.judging import PASS, Trace, judge
from engine.lessons.numbers import (
    LECTURE_SUFFIX,
    PLACEHOLDER,
    fill,
    fill_lesson,
    load,
    lookup,
    placeholders,
    record,
    stray_digits,
    texts,
)

RAW = experiments.lessons()
#: the figures a placeholder may name besides a claim's own (its run's recorded settings)
FIGURES = {
    "start",
    "end",
    "than_start",
    "than_end",
    "change",
    "sd",
    "r",
    "rho",
    "share",
    "worst",
    "here",
    "gap",
    "moved",
    "onset",
    "fired",
    "than_fired",
}


@pytest.mark.parametrize("kind", sorted(RAW))
def test_no_lesson_text_types_a_digit_that_no_claim_fills(kind: str) -> None:
    for text in texts(RAW[kind]):
        assert stray_digits(text) == [], text


@pytest.mark.parametrize("kind", sorted(RAW))
def test_every_placeholder_names_a_claim_of_its_lesson_and_a_figure_it_has(kind: str) -> None:
    lesson = RAW[kind]
    claims = {claim.key: claim for claim in lesson.claims}
    assert all(claim.key for claim in lesson.claims), "every claim has a key"
    assert len(claims) == len(lesson.claims), "keys are unique"
    for text in texts(lesson):
        for key, figure in placeholders(text):
            assert key in claims, (key, text)
            if figure.startswith("reported."):
                assert figure.partition(".")[2] in claims[key].reported, (key, figure)
            else:
                assert figure in FIGURES | set(lesson_figures.recorded_settings()), (key, figure)


@pytest.mark.parametrize("kind", sorted(RAW))
def test_every_placeholder_is_filled_from_the_recorded_runs_with_their_date_and_seeds(kind: str) -> None:
    """The committed results file holds a figure for every placeholder: the lesson the app shows has no
    gap, and its introduction says which runs (preset, length, seeds, date) the figures come from."""
    results = load()
    shown = fill_lesson(RAW[kind], results)
    for text in texts(shown):
        assert "…" not in text and not PLACEHOLDER.search(text), text
    assert "Figures measured by the lessons check:" in shown.intro and "not measured yet" not in shown.intro
    for name in {claim.preset for claim in RAW[kind].claims}:  # its full or its lecture version, or both
        found = [
            results["presets"].get(name),
            results["presets"].get(lesson_figures.version_name(name, True)),
        ]
        assert any(found), name
        for meta in filter(None, found):
            assert meta["date"] and meta["seeds"] and meta["command"].startswith("python -m engine")
    assert lessons.lesson(kind).intro == fill_lesson(RAW[kind]).intro


def test_record_then_fill_prints_the_measured_figures_and_settings(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text('{"steps": 40, "lr": 0.001, "seed": 0, "ema": 0.9, "view": "crop"}')
    claim = Claim("P", "a", "m", "falls", "m falls", key="fall", reported={"paper": 82.5})
    verdict = judge(claim, {"a": [Trace({"m": ((0.0, 0.25), (40.0, 0.0125))})]})
    assert verdict.outcome == PASS
    path = record(
        [verdict],
        {("P", "a"): [run]},
        length="full",
        seeds=3,
        path=tmp_path / "r.json",
        today="D",
        queued={("P", "a"): ["lr", "ema"]},
    )
    results = load(path)
    assert results["presets"]["P"] == {
        "date": "D",
        "length": "full",
        "seeds": [0, 1, 2],
        "command": 'python -m engine lessons check --seeds 3 --preset "P" --record',
        "settings": lesson_figures.QUEUED,
    }
    # the recorded knobs found in the config, then the fields the preset queued; not the seed
    assert results["claims"]["P / fall"]["settings"] == {"steps": 40, "lr": 0.001, "view": "crop", "ema": 0.9}
    find = lookup({"fall": claim}, results)
    text = "in {fall.steps} steps at lr {fall.lr}: {fall.start} → {fall.end} ({fall.change:+.2f}); "
    text += "paper {fall.reported.paper}"
    assert fill(text, find) == "in 40 steps at lr 0.001: 0.25 → 0.0125 (−0.24); paper 82.5"
    assert fill("{fall.rho}", find) == "…"  # a figure this claim has not: never a typed number
    with pytest.raises(KeyError):
        fill("{nothing.end}", find)


def test_stray_digits_sees_a_typed_number_but_not_a_placeholder_or_a_citation() -> None:
    assert stray_digits("IsoScore fell to 0.015 (Mickus et al. 2024)") == ["0.015"]
    assert stray_digits("IsoScore fell to {iso.end} (Mickus et al. 2024)") == []
    assert stray_digits("RankMe 16.45 and {none.end}") == ["16.45"]


def test_the_overview_no_longer_says_as_in_the_papers_figure_two() -> None:
    """The Overview promises no movement "as in" the paper's figure: it names the start the Figure 2 preset
    trains from and sends the reader to the lesson for what moves there."""
    overview = (Path(__file__).resolve().parents[2] / "views" / "overview.py").read_text(encoding="utf-8")
    words = " ".join(
        node.value
        for node in ast.walk(ast.parse(overview))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )
    assert "move as in" not in words
    assert "starts from its [CLS] token (`minilm-cls`)" in words
    assert "the lesson gives what moves there and what does not" in words


def test_two_lessons_may_use_the_same_key_each_reads_its_own_presets_figures(tmp_path: Path) -> None:
    one = Claim("P", "a", "m", "falls", "m falls", key="loss")
    two = Claim("Q", "a", "m", "falls", "m falls", key="loss")
    verdicts = [
        judge(claim, {"a": [Trace({"m": ((0.0, start), (1.0, 0.0))})]})
        for claim, start in ((one, 1.0), (two, 2.0))
    ]
    path = record(verdicts, {}, length="full", seeds=1, path=tmp_path / "r.json")
    results = load(path)
    assert fill("{loss.start}", lookup({"loss": one}, results)) == "1"
    assert fill("{loss.start}", lookup({"loss": two}, results)) == "2"


def test_the_lessons_figures_are_the_presets_own_runs_with_three_seeds_and_every_lab_claim_held() -> None:
    """The figures a lesson prints come from its preset at full length and, for a preset with a lecture
    version, from that version too (``--short``, recorded under ``<preset> · lecture``), each over at least 3
    seeds; each recorded setting is what that version queues today: a preset changed after its figures were
    measured fails here until they are measured again (``python -m engine lessons check [--short] --seeds 3
    --record``). Every recorded lab claim held."""
    from engine.lessons import check, presets

    results = load()
    found = presets.presets()
    keyed = [claim for claim in check.all_claims() if claim.key]
    full = {lesson_figures.entry(claim): claim for claim in keyed}
    lecture = {lesson_figures.entry(claim, True): claim for claim in keyed}
    for name, meta in results["presets"].items():
        short = name.endswith(LECTURE_SUFFIX)
        assert meta["length"] == ("short" if short else "full") and len(meta["seeds"]) >= 3, name
    assert set(results["claims"]) <= set(full) | set(lecture), "recorded claims that no lesson states"
    missing = [
        key
        for key, claim in full.items()
        if not {key, lesson_figures.entry(claim, True)} & set(results["claims"])
    ]
    assert not missing, f"claims recorded in neither version: {missing}"
    lectures = {claim.preset for claim in keyed if found[claim.preset].lecture}
    assert {name + LECTURE_SUFFIX for name in lectures} <= set(results["presets"]), (
        "a preset with a lecture version whose lecture figures are not recorded"
    )
    for key, entry in results["claims"].items():
        short = key in lecture
        assert (full.get(key) or lecture[key]).source == "paper" or entry["outcome"] == PASS, key
        queued = {run.name: run.fields for run in presets.queue(found[entry["preset"]], short=short)}
        fields = queued[entry["run"]]
        meta = results["presets"][lesson_figures.version_name(entry["preset"], short)]
        every_field = meta.get("settings") == lesson_figures.QUEUED
        for setting, value in fields.items():
            if every_field:  # since 2026-11-29 every field the preset queues is recorded
                assert setting in entry["settings"], (key, setting, "queued today, not recorded")
            if setting in entry["settings"]:
                assert entry["settings"][setting] == value, (key, setting, value, entry["settings"][setting])
    # recorded before the queued fields were (measure them again to drop the last of these): none may join
    older = {
        name for name, meta in results["presets"].items() if meta.get("settings") != lesson_figures.QUEUED
    }
    assert older <= {"SimCSE on a trained encoder"}, f"recorded without the queued fields: {sorted(older)}"


def test_a_lecture_record_is_printed_beside_lecture_runs_and_names_its_runs(tmp_path: Path) -> None:
    """``--short --record`` writes a preset's lecture figures beside its full ones; a lesson shown with the
    lecture version's runs prints the lecture figures, else the full ones, and its introduction names the
    version, steps, batch, training data and evaluation set its figures come from."""
    claim = Claim("P", "a", "m", "falls", "m falls", key="fall")
    for length, start, steps in (("full", 1.0, 100), ("short", 2.0, 15)):
        run = tmp_path / length
        run.mkdir()
        config = f'{{"steps": {steps}, "batch_size": 32, "train": "demo", "eval": null}}'
        (run / "config.json").write_text(config)
        (run / "summary.json").write_text('{"eval_set": "stsb dev (250 pairs)"}')
        verdict = judge(claim, {"a": [Trace({"m": ((0.0, start), (1.0, 0.0))})] * 3})
        record([verdict], {("P", "a"): [run]}, length=length, seeds=3, path=tmp_path / "r.json", today="D")
    results = load(tmp_path / "r.json")
    assert set(results["claims"]) == {"P / fall", "P · lecture / fall"}
    assert set(results["presets"]) == {"P", "P · lecture"}
    lesson = RAW["simcse"].__class__(title="t", intro="from {fall.start}", watch=(), claims=(claim,))
    full, lecture = fill_lesson(lesson, results), fill_lesson(lesson, results, short=True)
    assert full.intro.startswith("from 1 Figures") and lecture.intro.startswith("from 2 Figures")
    assert "“P”, full preset, 100 steps of batch 32 on demo, evaluated on stsb dev (250 pairs)" in full.intro
    assert "“P · lecture”, short preset, 15 steps of batch 32 on demo" in lecture.intro
    del results["claims"]["P · lecture / fall"]  # no lecture figures: the full ones, named as such
    assert fill_lesson(lesson, results, short=True).intro == full.intro
    del results["claims"]["P / fall"]  # none at all: "…", and the provenance says so
    assert fill_lesson(lesson, results).intro.startswith("from … Figures")
    results = load(tmp_path / "r.json")
    del results["claims"]["P / fall"]  # the lecture figures only: printed beside any run, named as such
    assert fill_lesson(lesson, results).intro == lecture.intro


def test_the_simcse_page_prints_the_lecture_figures_beside_lecture_runs_only() -> None:
    """The lecture version's runs (their configs) select the lecture figures of the Figure-2 preset; its
    full runs, or other runs, the full ones (engine.lessons.texts.lesson)."""
    from engine.lessons import presets

    found = presets.presets()
    lecture_runs = [run.fields for run in presets.queue(found["SimCSE Figure 2 · lecture"])]
    full_runs = [run.fields for run in presets.queue(found["SimCSE Figure 2"])]
    assert presets.lecture_runs_among(lecture_runs, ["SimCSE Figure 2"])
    assert not presets.lecture_runs_among(full_runs, ["SimCSE Figure 2"])
    assert not presets.lecture_runs_among([{"steps": 15}], ["SimCSE Figure 2"])
    assert "“SimCSE Figure 2 · lecture”, short preset" in lessons.lesson("simcse", lecture_runs).intro
    assert lessons.lesson("simcse", full_runs).intro == lessons.lesson("simcse").intro
    if "SimCSE Figure 2" in load()["presets"]:  # the full version recorded: its figures beside its runs
        assert "“SimCSE Figure 2”, full preset" in lessons.lesson("simcse", full_runs).intro
    else:  # not yet: the lecture version's, named as such
        assert "“SimCSE Figure 2 · lecture”, short preset" in lessons.lesson("simcse", full_runs).intro


def test_recording_a_preset_again_drops_its_claims_that_are_gone(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.csv").write_text("step,alignment\n0,0.3\n1,0.1\n", encoding="utf-8")
    kept = Claim("P", "run", "alignment", "falls", "falls", key="kept")
    gone = Claim("P", "run", "alignment", "falls", "falls too", key="gone")
    other = Claim("Q", "run", "alignment", "falls", "another preset's", key="other")
    folders = {("P", "run"): [run], ("Q", "run"): [run]}
    path = tmp_path / "r.json"
    trace = [Trace({"alignment": ((0.0, 0.3), (1.0, 0.1))})]
    record(
        [judge(c, {"run": trace}) for c in (kept, gone, other)], folders, length="full", seeds=1, path=path
    )
    assert set(load(path)["claims"]) == {"P / kept", "P / gone", "Q / other"}
    record([judge(kept, {"run": trace})], folders, length="full", seeds=1, path=path)
    assert set(load(path)["claims"]) == {"P / kept", "Q / other"}
