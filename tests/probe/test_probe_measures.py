"""The probe's geometry measures (engine.probe.measure): the columns and spectrum.csv a run writes, their
values against the engine.metrics functions applied to the saved snapshots, geometry steps, paired mode,
sampling (a fresh seeded sample per logged step, or a fixed one), the CLI flags and the summary.

Every value is compared with the engine.metrics function applied to exactly the vectors the classifier read
(the snapshots, snapshot_every=1 with no limit: every item, every step), to TOL = 1e-6 (metrics.csv keeps 9
significant digits).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from engine import cli, probe, runlog
from engine.core import flags
from engine.core.errors import ConfigError
from engine.experiments import EXPERIMENTS
from engine.metrics import (
    average_cosine,
    class_alignment,
    isoscore,
    partition_isotropy,
    rankme,
    series_correlation,
    silhouette,
    spectrum,
    uniformity,
)
from engine.probe.measure import COLUMNS, EVERY_STEP, GEOMETRY, is_geometry_step, measure, sample_rows
from engine.runlog import runner
from engine.runlog.events import Points, Row

TOL = 1e-6
DEMO_DIR = Path(__file__).resolve().parents[2] / "engine" / "data" / "demo"

pytestmark = pytest.mark.filterwarnings("ignore::engine.metrics.FewSamplesWarning")  # 60 items < 384 dims


def _expected(points: np.ndarray, labels: list[str]) -> dict[str, float]:
    """Every measure column from the engine.metrics function of its own, on ``points`` (items x d)."""
    return {
        "isoscore": isoscore(points),
        "silhouette": silhouette(points, labels),
        "rankme": rankme(points),
        "average_cosine": average_cosine(points),
        "partition_isotropy": partition_isotropy(points),
        "uniformity": uniformity(points),
        "alignment": class_alignment(points, labels),
    }


def _check_run(run_dir: Path, geometry_steps: list[int]) -> pd.DataFrame:
    """metrics.csv and spectrum.csv of a finished run against the functions applied to its snapshots."""
    frame = runlog.read_metrics(run_dir)
    labels = runlog.read_points(run_dir)["label"].tolist()
    snapshots = dict(runlog.list_snapshots(run_dir))
    spectra = runlog.read_spectrum(run_dir)
    assert spectra.steps.tolist() == geometry_steps
    for row in frame.to_dict("records"):
        step = int(row["step"])
        points = runlog.load_snapshot(snapshots[step])
        assert points.shape[0] == len(labels)  # every item: the measures saw these vectors
        expected = _expected(points, labels)
        for column in COLUMNS:
            if column in GEOMETRY and step not in geometry_steps:
                assert math.isnan(row[column]), (step, column)  # an empty cell
            else:
                assert row[column] == pytest.approx(expected[column], rel=0, abs=TOL), (step, column)
        if step in geometry_steps:
            np.testing.assert_allclose(spectra.at(step), spectrum(points), rtol=1e-7, atol=1e-12)
            assert spectra.eigenvalues.shape[1] == points.shape[1]
        else:
            assert spectra.at(step) is None
    return frame


def snapshotted(**fields) -> probe.ProbeConfig:
    """A short probe on 60 demo items on the CPU (lr 1e-2) that snapshots every step; ``fields`` set the
    rest (or override these)."""
    base = dict(data="demo", limit=60, lr=1e-2, snapshot_every=1, snapshot_limit=10_000, device="cpu")
    return probe.ProbeConfig(**{**base, **fields})


def test_demo_run_logs_every_measure_and_the_spectrum_of_the_classifier_inputs(tmp_path: Path) -> None:
    config = snapshotted(steps=4, seed=0, geometry_every=1)
    summary = runner.run_experiment("probe", config, tmp_path / "run")
    frame = _check_run(tmp_path / "run", [0, 1, 2, 3, 4])
    assert frame.columns.tolist() == list(EXPERIMENTS["probe"].columns)
    assert frame.columns.tolist()[4:-1] == list(COLUMNS)  # after step, loss, accuracy, micro_f1
    spectra = runlog.read_spectrum(tmp_path / "run")
    header = (tmp_path / "run" / "spectrum.csv").read_text().splitlines()[0].split(",")
    assert header == ["step", *(f"lambda_{k}" for k in range(1, 385))]
    assert (np.diff(spectra.eigenvalues, axis=1) <= 0).all()  # largest first
    assert not np.allclose(spectra.eigenvalues[0], spectra.eigenvalues[-1])  # the spectrum moved
    for column in COLUMNS:  # the summary: start, end, and r / rho against the silhouette
        assert summary[f"{column}_start"] == pytest.approx(frame[column].iloc[0], abs=TOL)
        assert summary[f"{column}_end"] == pytest.approx(frame[column].iloc[-1], abs=TOL)
    r, rho = series_correlation(frame["rankme"], frame["silhouette"])
    assert summary["rankme_pearson_r"] == pytest.approx(r, abs=1e-6)
    assert summary["rankme_spearman_rho"] == pytest.approx(rho, abs=1e-9)
    assert summary["pearson_r"] == summary["isoscore_pearson_r"] and "silhouette_pearson_r" not in summary


def test_geometry_steps_leave_empty_cells_between(tmp_path: Path) -> None:
    """metric_every 2, geometry_every 2: logged 0, 2, 4, 6, 8, 9; geometry at 0, 4, 8 and the last, 9."""
    config = snapshotted(steps=9, metric_every=2, geometry_every=2)
    assert [s for s in range(10) if is_geometry_step(s, config)] == [0, 4, 8, 9]
    runner.run_experiment("probe", config, tmp_path / "run")
    frame = _check_run(tmp_path / "run", [0, 4, 8, 9])
    assert frame["step"].tolist() == [0, 2, 4, 6, 8, 9]
    assert frame[list(EVERY_STEP)].notna().all().all()


def test_geometry_every_zero_measures_the_every_step_ones_only(tmp_path: Path) -> None:
    config = probe.ProbeConfig(data="demo", limit=60, steps=2, geometry_every=0, device="cpu")
    summary = runner.run_experiment("probe", config, tmp_path / "run")
    frame = runlog.read_metrics(tmp_path / "run")
    assert frame[list(GEOMETRY)].isna().all().all() and frame[list(EVERY_STEP)].notna().all().all()
    assert (
        not (tmp_path / "run" / "spectrum.csv").exists() and len(runlog.read_spectrum(tmp_path / "run")) == 0
    )
    assert "uniformity_start" not in summary and "alignment_start" in summary


def _write_pairs(folder: Path) -> Path:
    """NLI pairs from the demo triples: each premise with its entailed and its contradicted hypothesis."""
    triples = pd.read_json(DEMO_DIR / "nli.jsonl", lines=True).head(20)
    rows = [
        (p, h, label)
        for p, e, c in zip(triples.premise, triples.entailment, triples.contradiction, strict=True)
        for h, label in ((e, "entailment"), (c, "contradiction"))
    ]
    path = folder / "pairs.tsv"
    pd.DataFrame(rows, columns=["premise", "hypothesis", "label"]).to_csv(path, sep="\t", index=False)
    return path


def test_paired_mode_measures_the_pair_vectors(tmp_path: Path) -> None:
    """Paired (NLI): every measure and the spectrum are those of [E_p ; E_h] with the pair labels."""
    from engine.encoders import encode_cached, load_encoder

    path = _write_pairs(tmp_path)
    config = snapshotted(data=str(path), limit=None, steps=3, geometry_every=1)
    runner.run_experiment("probe", config, tmp_path / "run")
    _check_run(tmp_path / "run", [0, 1, 2, 3])
    pairs = pd.read_csv(path, sep="\t")
    start = runlog.load_snapshot(runlog.list_snapshots(tmp_path / "run")[0][1])
    encoder = load_encoder(None, device="cpu")
    premises = encode_cached(encoder, pairs.premise.tolist())
    hypotheses = encode_cached(encoder, pairs.hypothesis.tolist())
    np.testing.assert_allclose(start, np.concatenate([premises, hypotheses], axis=1), rtol=0, atol=1e-6)
    assert runlog.read_spectrum(tmp_path / "run").eigenvalues.shape == (4, 768)


@pytest.mark.parametrize("fixed", [False, True])
def test_sampled_measures_are_those_of_the_sampled_rows(fixed: bool) -> None:
    """sample_size: every measure of a logged step on the same seeded sample of items, fresh per step (or
    step 0's for the whole run with fixed_sample), equal to the exact functions on exactly those rows."""
    config = snapshotted(steps=3, seed=5, sample_size=30, fixed_sample=fixed, geometry_every=1)
    events = list(probe.run_probe(config))
    labels = np.array(next(e for e in events if isinstance(e, Points)).labels)
    rows = [e for e in events if isinstance(e, Row)]
    samples = []
    for row in rows:
        chosen = sample_rows(60, config, row.step)
        assert len(chosen) == 30 and len(set(chosen.tolist())) == 30 and (np.diff(chosen) > 0).all()
        samples.append(chosen)
        points, names = row.snapshot[chosen], labels[chosen].tolist()
        expected = _expected(points, names)
        for column in COLUMNS:
            assert row.values[column] == pytest.approx(expected[column], rel=0, abs=TOL), (row.step, column)
        np.testing.assert_allclose(row.spectrum, spectrum(points), rtol=1e-9, atol=1e-12)
        exact = silhouette(row.snapshot, labels.tolist())
        assert abs(row.values["silhouette"] - exact) > 1e-6  # not the exact value: a sample indeed
    same = all(np.array_equal(samples[0], s) for s in samples[1:])
    assert same == fixed
    generator = np.random.default_rng([5, 0 if fixed else 2])
    np.testing.assert_array_equal(samples[2], np.sort(generator.choice(60, size=30, replace=False)))


def test_measure_reports_its_sample_with_and_without_a_side_thread() -> None:
    rng = np.random.default_rng(0)
    points = torch.from_numpy(rng.normal(size=(200, 16)).astype(np.float32))
    clusters = torch.from_numpy(rng.integers(0, 3, 200))
    config = probe.ProbeConfig(steps=10, sample_size=50, seed=2, geometry_every=1)
    alone = measure(points, clusters, config, None, step=7)
    with ThreadPoolExecutor(1) as side:
        beside = measure(points, clusters, config, side, step=7)
    np.testing.assert_array_equal(alone.rows, sample_rows(200, config, 7))
    np.testing.assert_array_equal(alone.rows, beside.rows)
    for column in COLUMNS:
        assert alone.values[column] == pytest.approx(beside.values[column], rel=0, abs=1e-9), column
    plain = measure(points, clusters, probe.ProbeConfig(steps=10, geometry_every=3), None, step=1)
    assert plain.rows is None and plain.spectrum is None
    assert all(plain.values[c] is None for c in GEOMETRY) and all(
        plain.values[c] is not None for c in EVERY_STEP
    )
    assert plain.values["average_cosine"] == pytest.approx(average_cosine(points), abs=1e-12)
    assert plain.values["alignment"] == pytest.approx(class_alignment(points, clusters), abs=1e-12)


def test_cli_flags_set_sampling_and_geometry() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(
        ["probe", "--out", "x", "--sample-size", "1000", "--fixed-sample", "--geometry-every", "3"]
    )
    config = flags.config_from_args(probe.ProbeConfig, args)
    assert (config.sample_size, config.fixed_sample, config.geometry_every) == (1000, True, 3)
    config = flags.config_from_args(probe.ProbeConfig, parser.parse_args(["probe", "--out", "x"]))
    assert (config.sample_size, config.fixed_sample, config.geometry_every) == (None, False, 10)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"geometry_every": -1}, "geometry_every"),
        ({"geometry_every": 1.5}, "geometry_every"),
        ({"fixed_sample": True}, "needs a sample_size"),
        ({"fixed_sample": 1, "sample_size": 5}, "true or false"),
    ],
)
def test_bad_geometry_settings_are_one_line_errors(fields: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        probe.ProbeConfig(**fields)


def test_summary_pairs_each_measure_with_the_silhouette_where_both_are_logged() -> None:
    sil = [0.0, 0.1, 0.3, 0.35, 0.6, 0.7]
    rows = [
        {
            "step": s,
            "silhouette": v,
            "isoscore": 0.5 - v**2,
            "rankme": (30 - 10 * v) if s % 2 == 0 else None,
            "partition_isotropy": None,
            "uniformity": float("nan") if s == 0 else -3 + v,
        }
        for s, v in enumerate(sil)
    ]
    summary = probe.summarize(rows, probe.ProbeConfig())
    r, rho = series_correlation([0.5 - v**2 for v in sil], sil)
    assert (summary["pearson_r"], summary["spearman_rho"]) == (r, rho)
    assert summary["isoscore_start"] == 0.5 and summary["isoscore_end"] == pytest.approx(0.01)
    even = [sil[0], sil[2], sil[4]]
    r, rho = series_correlation([30 - 10 * v for v in even], even)
    assert summary["rankme_pearson_r"] == pytest.approx(r) and summary["rankme_spearman_rho"] == rho
    assert summary["rankme_end"] == pytest.approx(24.0)
    assert summary["uniformity_start"] == pytest.approx(-2.9)  # the NaN of step 0 is no value
    assert summary["uniformity_pearson_r"] == pytest.approx(1.0)
    assert "partition_isotropy_start" not in summary and "alignment_start" not in summary
    short = probe.summarize(rows[:2], probe.ProbeConfig())
    assert short["pearson_r"] is None and short["rankme_pearson_r"] is None
