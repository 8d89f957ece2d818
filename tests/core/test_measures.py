"""The measure registry (engine/core/measures.py): each measure declared once, every reader takes it from
there.

Each measure of the registry appears in the glossary, in the ``metrics.csv`` header of every experiment that
logs it (the header a run writes, from the experiment's config), and in the replay of a tiny run of that
experiment (its name and label in the lesson's payload, the spectrum as its figure). No module outside the
registry holds a dictionary of measure labels.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import numpy as np
import pytest

from engine import charts, experiments, runlog
from engine.core import measures
from engine.core.knobs import knobs
from engine.core.measures import BOOKKEEPING, MEASURES
from engine.lessons import texts as lessons

REPO = Path(__file__).resolve().parents[2]


def test_every_entry_is_complete_and_consistent() -> None:
    for name, measure in MEASURES.items():
        assert measure.name == name
        assert measure.label and "\n" not in measure.label and measure.chart_title
        assert measure.plain and measure.formula and measure.source and measure.higher_means, name
        assert measure.better in measures.BETTER and measure.kind in measures.KINDS, name
        assert measure.scale in measures.SCALES, name
        assert measure.better != "neither" or measure.kind == "vector", name
        low, high = measure.range
        assert low is None or high is None or low < high, name
        assert measure.explained_by is None or MEASURES[measure.explained_by].in_glossary, name


def test_directions_and_ranges_of_the_isotropy_family() -> None:
    """Direction and range of the isotropy family (the glossary's and the axes')."""
    get = measures.get
    assert (get("spectrum").kind, get("spectrum").better, get("spectrum").range) == (
        "vector",
        "neither",
        (0, None),
    )
    assert (get("rankme").better, get("rankme").range) == ("higher", (1.0, None))
    assert (get("average_cosine").better, get("average_cosine").range) == ("lower", (-1.0, 1.0))
    assert (get("partition_isotropy").better, get("partition_isotropy").range) == ("higher", (0.0, 1.0))
    assert (get("class_alignment").better, get("class_alignment").range) == ("lower", (0.0, 4.0))
    assert all(MEASURES[name].kind == "scalar" for name in MEASURES if name != "spectrum")
    assert get("spectrum").scale == "log"


def test_labelled_set_variants_are_their_base_measured_again() -> None:
    for base in measures.ON_LABELLED_SET:
        variant = MEASURES[f"probe_{base}"]
        assert variant.explained_by == base and variant.range == MEASURES[base].range
        assert variant.label.lower() == f"labelled-set {MEASURES[base].label.lower()}"
    assert charts.label("probe_isoscore") == "Labelled-set IsoScore"
    assert charts.label("probe_partition_isotropy") == "Labelled-set partition isotropy I(W)"


def test_an_unknown_name_is_a_clear_error_and_an_unknown_column_still_gets_a_title() -> None:
    with pytest.raises(KeyError, match="unknown measure 'nope'.*isoscore"):
        measures.get("nope")
    assert charts.label("some_new_column") == "Some new column"
    assert charts.label("eval_seconds") == BOOKKEEPING["eval_seconds"].label


def test_every_measure_is_in_the_glossary() -> None:
    terms = {term.name: term for term in lessons.glossary()}
    for name, measure in MEASURES.items():
        entry = terms[measure.explained_by or name]
        if measure.in_glossary:
            assert (entry.label, entry.formula, entry.plain) == (
                measure.label,
                measure.formula,
                measure.plain,
            )
            assert entry.range == measures.range_text(*measure.range)
    assert set(terms) == {name for name, measure in MEASURES.items() if measure.in_glossary}


def _header(run_dir: Path) -> list[str]:
    with open(run_dir / runlog.METRICS, newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle))


def _tiny_run(run_dir: Path, kind: str) -> Path:
    """A finished run of ``kind`` as its runner writes it: the header from the experiment's config (with every
    optional measure switched on), three rows with a number in every column, and a spectrum per row."""
    experiment = experiments.EXPERIMENTS[kind]
    knob_names = {item.name for item in knobs(experiment.config_class)}
    config = experiment.make_config(**({"probe": "demo"} if "probe" in knob_names else {}))
    columns = experiment.columns_for(config)
    writer = runlog.RunWriter(run_dir, columns, {"kind": kind})
    rng = np.random.default_rng(0)
    for step in range(3):
        writer.append_spectrum(step, np.sort(rng.random(6))[::-1])
        writer.append({column: step if column == "step" else float(rng.random()) for column in columns})
    writer.finish("finished", summary={"state": "finished"})
    return run_dir


@pytest.mark.parametrize("kind", list(experiments.EXPERIMENTS))
def test_every_measure_an_experiment_logs_is_in_its_csv_header_and_in_its_replay(tmp_path, kind) -> None:
    from engine.replay.payload import payload, plotly_text
    from engine.replay.source import load_run

    experiment = experiments.EXPERIMENTS[kind]
    run_dir = _tiny_run(tmp_path / kind, kind)
    header = _header(run_dir)
    assert all(column in MEASURES or column in BOOKKEEPING for column in header), header
    data = payload([load_run(run_dir)], [None])
    curves = {entry["key"]: entry["label"] for entry in data["metrics"]}
    logged = experiment.measures()
    assert logged and set(logged) == {m for m in MEASURES if kind in experiments.logging(m)}
    for name in logged:
        measure = MEASURES[name]
        if measure.kind == "vector":
            assert name in experiment.vectors and data["spectrum"]["data"], name
            continue
        assert experiment.column_of(name) in header, name
        assert curves[name] == plotly_text(measure.chart_title), name


def test_every_logged_measure_is_logged_by_some_experiment_and_its_page_offers_it() -> None:
    for kind, experiment in experiments.EXPERIMENTS.items():
        scalar = [m for m in experiment.measures() if MEASURES[m].kind == "scalar"]
        assert set(experiment.section.metrics) == set(scalar), kind
        assert set(experiment.section.drawn) <= set(experiment.measures()), kind
        assert set(experiment.section.pair) <= set(experiment.section.metrics), kind
    derived = {"isoscore_star"}  # drawn from the snapshots by the page, not a column
    assert {m for m in MEASURES if not experiments.logging(m)} == derived


def _label_dicts(path: Path) -> list[int]:
    """Lines of dictionary displays in ``path`` that map measure names to their labels (a second label
    registry): at least two measure-name keys whose values are registered labels or chart titles."""
    labels = {text.lower() for m in MEASURES.values() for text in (m.label, m.chart_title)}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Dict):
            continue
        pairs = [
            (k.value, v.value)
            for k, v in zip(node.keys, node.values)
            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str)
        ]
        hits = [key for key, value in pairs if key in MEASURES and value.lower() in labels]
        if len(hits) >= 2:
            found.append(node.lineno)
    return found


def test_no_module_outside_the_registry_defines_measure_labels(tmp_path) -> None:
    files = [p for folder in ("engine", "ui", "pages") for p in (REPO / folder).rglob("*.py")]
    found = {str(p.relative_to(REPO)): _label_dicts(p) for p in files}
    assert {path: lines for path, lines in found.items() if lines} == {}
    second = tmp_path / "second_registry.py"  # what the check catches
    second.write_text('NAMES = {"spectrum": "Covariance spectrum", "loss": "Training loss", "x": 1}\n')
    assert _label_dicts(second) == [1]
