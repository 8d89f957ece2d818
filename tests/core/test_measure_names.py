"""One name per measure (issues 35 and 36): RankMe is ``rankme`` everywhere, an old run folder that logged
it as ``effective_rank`` still reads (under the new name, by every reader), and a measure's name is written
in its declaration, its function and its tests only: the experiments refer to the registry's constants and
groups (:mod:`engine.core.measures`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import charts, experiments, runlog
from engine.core import measures
from engine.core.lesson_claims import Claim
from engine.core.measures import RANKME
from engine.lessons import check as lessons_check
from engine.lessons.judging import PASS

REPO = Path(__file__).resolve().parents[2]
#: where the app's code lives (its tests, benchmarks and scripts are not counted)
CODE = ("engine", "ui", "views")
#: the files that may name each measure: its declaration, its function, and the metrics package's exports
MOST_FILES = {measures.PARTITION_ISOTROPY: 3, RANKME: 3}


def files_naming(name: str) -> list[str]:
    """The ``.py`` files of :data:`CODE` that hold ``name`` as a whole word (as ``grep -rlw`` finds it)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return sorted(
        str(path.relative_to(REPO))
        for folder in CODE
        for path in (REPO / folder).rglob("*.py")
        if word.search(path.read_text(encoding="utf-8"))
    )


@pytest.mark.parametrize("name", list(MOST_FILES))
def test_a_measure_is_named_in_its_declaration_and_its_function_only(name) -> None:
    found = files_naming(name)
    assert "engine/core/measures.py" in found
    assert len(found) <= MOST_FILES[name], (
        f"{name} is named in {found}: refer to engine.core.measures instead"
    )


def test_rankme_has_one_name_and_effective_rank_is_its_alias() -> None:
    rankme = measures.get(RANKME)
    assert rankme.aliases == ("effective_rank",) and "effective rank" in rankme.plain
    assert rankme.chart_title == "RankMe (effective rank)" and charts.label(RANKME) == rankme.chart_title
    assert measures.current_name("effective_rank") == measures.current_name(RANKME) == RANKME
    assert measures.current_name("probe_effective_rank") == f"probe_{RANKME}"
    assert not {"effective_rank", "probe_effective_rank"} & set(measures.MEASURES)
    for experiment in experiments.EXPERIMENTS.values():
        assert "effective_rank" not in experiment.columns and RANKME in experiment.columns


def _old_run(run_dir: Path) -> Path:
    """A finished SimCSE-like run folder as the lab wrote it before the rename: RankMe in the columns
    ``effective_rank`` and ``probe_effective_rank``, its summary keys ``effective_rank_*``."""
    columns = ["step", "loss", "isoscore", "effective_rank", "probe_effective_rank", "seconds"]
    writer = runlog.RunWriter(run_dir, columns, {"kind": "simcse"})
    for step in range(5):
        row = {"step": step, "loss": 1.0 - step / 10, "isoscore": 0.3, "seconds": float(step)}
        writer.append({**row, "effective_rank": 90.0 - 10 * step, "probe_effective_rank": 50.0 + step})
    summary = {
        "state": "finished",
        "effective_rank_start": 90.0,
        "effective_rank_end": 50.0,
        "effective_rank_pearson_r": -0.95,
        "effective_rank_spearman_rho": -1.0,
        "probe_effective_rank_end": 54.0,
        "isoscore_end": 0.3,
    }
    writer.finish("finished", summary=summary)
    return run_dir


def test_an_old_run_folder_reads_rankme_under_its_name(tmp_path) -> None:
    from engine.jobs.job import Job
    from engine.replay.payload import payload
    from engine.replay.source import load_run

    run_dir = _old_run(tmp_path / "old")
    ranks = [90.0, 80.0, 70.0, 60.0, 50.0]

    frame = runlog.read_metrics(run_dir)  # charts, Compare's downloads, groups
    assert RANKME in frame and f"probe_{RANKME}" in frame and "effective_rank" not in frame
    assert frame[RANKME].tolist() == ranks

    tail = runlog.MetricsTail(run_dir)  # a job's rows (the live view, Compare)
    rows = tail.read_new()
    assert [row[RANKME] for row in rows] == ranks and "effective_rank" not in rows[0]
    assert tail.frame()[RANKME].tolist() == ranks

    summary = runlog.read_summary(run_dir)
    assert summary is not None
    assert (summary[f"{RANKME}_start"], summary[f"{RANKME}_end"], summary[f"probe_{RANKME}_end"]) == (
        90.0,
        50.0,
        54.0,
    )
    assert summary["isoscore_end"] == 0.3 and not [key for key in summary if "effective_rank" in key]

    job = Job.from_run(runlog.load_run_info(run_dir))  # Compare: a run found on disk
    assert job.rows.metrics()[RANKME].tolist() == ranks and job.summary == summary
    assert RANKME in experiments.all_metrics()  # Compare's measure picker offers it ...
    assert charts.available_metrics({"old": job.rows.metrics()}, experiments.all_metrics()).count(RANKME) == 1
    figure = charts.metric_figure({"old": job.rows.metrics()}, RANKME)  # ... and draws it
    assert list(figure.data[0].y) == ranks

    curves = {entry["key"] for entry in payload([load_run(run_dir)], [None])["metrics"]}  # the replay
    assert RANKME in curves and "effective_rank" not in curves


def test_the_lessons_check_judges_rankme_on_an_old_run_folder(tmp_path) -> None:
    run_dir = _old_run(tmp_path / "old")
    trace = lessons_check.read_trace(run_dir)
    assert [value for _, value in trace.columns[RANKME]] == [90.0, 80.0, 70.0, 60.0, 50.0]
    assert trace.summary[f"{RANKME}_pearson_r"] == -0.95
    claims = [
        Claim("P", "old", RANKME, "falls", "RankMe falls.", by=20.0),
        Claim("P", "old", RANKME, "correlates", "RankMe against the silhouette.", way="opposite", by=0.8),
    ]
    verdicts = lessons_check.judge_all(claims, {("P", "old"): [run_dir]})
    assert [verdict.outcome for verdict in verdicts] == [PASS, PASS], [v.measured for v in verdicts]
