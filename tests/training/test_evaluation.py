"""SimCSE's evaluation: the isotropy family (RankMe, average cosine, partition isotropy, IsoScore)
and the covariance spectrum, against the plain engine.metrics functions on the same embeddings; the run
folder's columns and ``spectrum.csv``."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import metrics, runlog
from engine.runlog.runner import run_experiment
from engine.training.config import GEOMETRY_COLUMNS
from engine.training.data import load_eval, load_labelled_set
from engine.training.encoder import build_encoder
from engine.training.evaluation import Evaluator, geometry

CPU = torch.device("cpu")


def _family(points: np.ndarray) -> dict[str, float]:
    """The single functions, each on its own (what the evaluation's one-pass profile must equal)."""
    return {
        "isoscore": metrics.isoscore(points),
        "rankme": metrics.rankme(points),
        "average_cosine": metrics.average_cosine(points),
        "partition_isotropy": metrics.partition_isotropy(points),
    }


def test_geometry_equals_the_single_metric_functions() -> None:
    rng = np.random.default_rng(0)
    points = (rng.standard_normal((300, 24)) * np.linspace(3.0, 0.1, 24) + 0.5).astype(
        np.float32
    )  # anisotropic
    values, spectrum = geometry(points)
    assert set(values) == {"isoscore", *GEOMETRY_COLUMNS}
    for name, want in _family(points).items():
        assert values[name] == pytest.approx(want, rel=1e-4, abs=1e-6), name
    np.testing.assert_allclose(
        spectrum, np.sort(np.linalg.eigvalsh(np.cov(points.T.astype(np.float64))))[::-1], rtol=1e-4, atol=1e-9
    )


def test_each_evaluation_logs_the_family_on_the_eval_sentences_and_the_probe(tiny_config) -> None:
    config = tiny_config(eval_limit=None, probe="demo", probe_limit=60)
    encoder, _ = build_encoder(config, CPU)
    evalset, probe = load_eval(config), load_labelled_set(config)
    got = Evaluator(encoder, evalset, probe)(threading.Event())
    emb = encoder.encode(evalset.sentences, batch_size=128)  # the plain path, sentence by sentence
    labelled_emb = encoder.encode(list(probe.texts))
    for name, want in _family(emb).items():
        assert got[name] == pytest.approx(want, rel=1e-4, abs=1e-5), name
    for name, want in _family(labelled_emb).items():
        assert got[f"probe_{name}"] == pytest.approx(want, rel=1e-4, abs=1e-5), name
    np.testing.assert_allclose(got["_spectrum"], metrics.spectrum(emb), rtol=1e-3, atol=1e-7)
    without = Evaluator(encoder, evalset, probe, geometry=False)(threading.Event())
    assert not set(GEOMETRY_COLUMNS) & set(without) and without["_spectrum"] is None
    assert without["isoscore"] == pytest.approx(got["isoscore"], abs=1e-5)


def test_the_run_folder_holds_the_columns_and_the_spectrum_of_each_evaluation(
    tiny_config, tmp_path: Path
) -> None:
    """Snapshots without a probe are the evaluation sentences' embeddings: the logged values and the spectrum
    must be those of the metric functions on each snapshot."""
    config = tiny_config(steps=4, eval_every=2, snapshot_every=2)
    run = tmp_path / "run"
    run_experiment("simcse", config, run)
    table = runlog.read_metrics(run)
    assert {*GEOMETRY_COLUMNS, "isoscore"} <= set(table.columns)
    spectra = runlog.read_spectrum(run)
    assert spectra.steps.tolist() == [0, 2, 4]
    for step, path in runlog.list_snapshots(run):
        points = runlog.load_snapshot(path)
        row = table[table["step"] == step].iloc[0]
        for name, want in _family(points).items():
            assert row[name] == pytest.approx(want, rel=1e-4, abs=1e-5), (step, name)
        np.testing.assert_allclose(spectra.at(step), metrics.spectrum(points), rtol=1e-4, atol=1e-8)
    assert table[table["step"] == 1][list(GEOMETRY_COLUMNS)].isna().all(axis=None)  # no evaluation at step 1
    with_probe = tiny_config(probe="demo", probe_limit=40)
    assert [c for c in with_probe.metric_columns() if c.startswith("probe_")] == [
        "probe_silhouette",
        "probe_isoscore",
        *(f"probe_{name}" for name in GEOMETRY_COLUMNS),
    ]


def test_evaluation_forwards_run_in_the_runs_precision(tiny_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation's forwards enter the run's autocast (bf16 where the run trains in it); the vectors stay
    float32 and, in bf16, within bf16's rounding of the float32 ones."""
    import engine.compute.device as device

    entered: list[str] = []
    real = device.autocast

    def recording(where, enabled=True, precision="auto"):
        entered.append(precision)
        return real(where, enabled, precision)

    monkeypatch.setattr(device, "autocast", recording)
    config = tiny_config(probe="demo", probe_limit=40)
    encoder, _ = build_encoder(config, CPU)
    evalset, probe = load_eval(config), load_labelled_set(config)
    fp32 = Evaluator(encoder, evalset, probe, precision="fp32")(threading.Event())
    assert entered == ["fp32", "fp32"]  # the evaluation sentences, then the probe's
    mixed = Evaluator(encoder, evalset, probe, precision="auto")(threading.Event())
    assert entered[2:] == ["auto", "auto"]
    assert mixed["_points"].dtype == np.float32
    if device.autocast_dtype(CPU, "auto") is None:  # no native bf16 here: auto is float32
        np.testing.assert_array_equal(mixed["_points"], fp32["_points"])
    else:
        np.testing.assert_allclose(
            mixed["_points"], fp32["_points"], atol=0.05 * np.abs(fp32["_points"]).max()
        )
        assert mixed["sts_spearman"] == pytest.approx(fp32["sts_spearman"], abs=0.05)


def test_evaluator_equals_encoding_the_sentences_each_time(tiny_config) -> None:
    config = tiny_config(eval_limit=None, probe="demo", probe_limit=60)
    encoder, _ = build_encoder(config, CPU)
    evalset = load_eval(config)
    probe = load_labelled_set(config)
    evaluator = Evaluator(encoder, evalset, probe)
    got = evaluator(threading.Event())
    emb = encoder.encode(evalset.sentences, batch_size=128)
    np.testing.assert_allclose(
        evaluator.encoder.encode_tokenized(evaluator.tokens), emb, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(got["_points"], encoder.encode(list(probe.texts)), rtol=1e-5, atol=1e-6)
    from engine.metrics import sts_spearman

    want = sts_spearman(emb[evalset.left], emb[evalset.right], evalset.gold)
    assert got["sts_spearman"] == pytest.approx(want, abs=1e-6)
    assert encoder.model.training  # the evaluation restored training mode
    seen: list[tuple[int, int]] = []  # progress: the evaluation's sentences, then the probe's, one total
    evaluator(threading.Event(), lambda done, total: seen.append((done, total)))
    total = len(evalset.sentences) + len(probe.texts)
    assert evaluator.sentences == total and seen[-1] == (total, total) and {t for _, t in seen} == {total}
    assert [done for done, _ in seen] == sorted({done for done, _ in seen})  # rising, no repeats
    stop = threading.Event()
    stop.set()
    assert evaluator(stop) is None
