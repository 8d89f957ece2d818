"""The linear-classifier embedding optimisation: the paper's finding on the demo corpus, modes, settings."""

import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import probe, runlog
from engine.core.errors import ConfigError, DataError
from engine.runlog import runner
from engine.runlog.events import Points, Row
from tests.headers import PROBE_HEADER

COLUMNS = ("step", "loss", "accuracy", "isoscore", "silhouette", "seconds")


def _rows(config: probe.ProbeConfig, stop: threading.Event | None = None) -> list[Row]:
    return [event for event in probe.run_probe(config, stop) if isinstance(event, Row)]


@pytest.fixture(scope="module")
def demo_rows() -> list[Row]:
    return _rows(probe.ProbeConfig(data="demo", limit=150, steps=40, lr=1e-2, seed=0))


def test_isotropy_falls_and_clusters_form_on_the_demo_corpus(demo_rows: list[Row]) -> None:
    assert [r.step for r in demo_rows] == list(range(41))
    first, last = demo_rows[0].values, demo_rows[-1].values
    assert last["isoscore"] < first["isoscore"]
    assert last["silhouette"] > first["silhouette"] + 0.1
    assert last["loss"] < first["loss"] and last["accuracy"] == 1.0
    summary = probe.summarize([r.record(COLUMNS) for r in demo_rows], probe.ProbeConfig())
    assert summary["pearson_r"] < -0.5 and summary["spearman_rho"] < -0.9


def test_metric_every_logs_first_every_kth_and_last_step() -> None:
    rows = _rows(probe.ProbeConfig(data="demo", limit=60, steps=7, metric_every=3))
    assert [r.step for r in rows] == [0, 3, 6, 7]


def test_snapshots_cover_a_fixed_subset_with_points_first() -> None:
    events = list(
        probe.run_probe(
            probe.ProbeConfig(data="demo", limit=60, steps=4, snapshot_every=2, snapshot_limit=25)
        )
    )
    points = next(e for e in events if isinstance(e, Points))
    snaps = [(e.step, e.snapshot) for e in events if isinstance(e, Row) and e.snapshot is not None]
    assert [s for s, _ in snaps] == [0, 2, 4]
    assert events.index(points) < next(i for i, e in enumerate(events) if isinstance(e, Row))
    assert len(points.texts) == len(points.labels) == 25 and snaps[0][1].shape == (25, 384)
    assert not np.allclose(snaps[0][1], snaps[-1][1])


def test_stop_flag_ends_within_one_step() -> None:
    stop = threading.Event()
    rows = []
    for event in probe.run_probe(probe.ProbeConfig(data="demo", limit=60, steps=500), stop):
        if isinstance(event, Row):
            rows.append(event)
            stop.set()
    assert len(rows) == 1


def test_seeded_runs_are_reproducible() -> None:
    config = probe.ProbeConfig(data="demo", limit=60, steps=5, sample_size=30, seed=3)
    first, second = _rows(config), _rows(config)
    for a, b in zip(first, second):
        assert a.get("loss") == pytest.approx(b.get("loss"), abs=1e-7)
        assert a.get("silhouette") == pytest.approx(b.get("silhouette"), abs=1e-7)


def test_one_and_two_cores_log_the_same_run() -> None:
    """Two threads: Adam on one op thread, IsoScore on a side thread beside the silhouette's two workers.
    Same numbers as one thread, up to the workers' summation order; torch's thread count is restored."""
    config = probe.ProbeConfig(data="demo", limit=200, steps=6, lr=1e-2, seed=1)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _rows(config)
        torch.set_num_threads(2)
        two = _rows(config)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    for a, b in zip(one, two, strict=True):
        for column in ("loss", "accuracy", "isoscore", "silhouette"):
            assert a.get(column) == pytest.approx(b.get(column), abs=1e-6), column


def test_multi_label_uses_per_label_bce(tmp_path: Path) -> None:
    rows = ["text,label"] + [
        f"sentence number {i} about {'cats' if i % 2 else 'dogs'} and more,"
        f"{'a|b' if i % 3 == 0 else 'a' if i % 3 == 1 else 'b'}"
        for i in range(30)
    ]
    (tmp_path / "multi.csv").write_text("\n".join(rows) + "\n")
    problem = probe.build_problem(
        probe.ProbeConfig(data=str(tmp_path / "multi.csv")),
        lambda texts: np.random.default_rng(0).normal(size=(len(texts), 8)),
    )
    assert problem.multi_label and problem.targets.shape == (30, 2)
    assert sorted(np.unique(problem.cluster_ids).tolist()) == [0, 1, 2]  # a, b, a|b: three clusters
    logits = torch.zeros(3, 2)
    loss, _ = probe.loss_and_accuracy(logits, torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), True)
    assert loss.item() == pytest.approx(np.log(2), abs=1e-6)


def test_paired_mode_shares_sentence_parameters(tmp_path: Path) -> None:
    lines = ["premise\thypothesis\tlabel"]
    for i in range(12):
        lines.append(
            f"A person number {i} walks a dog.\tSomeone walks.\t"
            f"{['entailment', 'neutral', 'contradiction'][i % 3]}"
        )
    (tmp_path / "nli.tsv").write_text("\n".join(lines) + "\n")
    problem = probe.build_problem(
        probe.ProbeConfig(data=str(tmp_path / "nli.tsv")),
        lambda texts: np.eye(len(texts), 16, dtype=np.float32),
    )
    assert len(problem.texts) == 13  # 12 premises + one shared hypothesis
    assert problem.pairs.shape == (12, 2) and (problem.pairs[:, 1] == problem.pairs[0, 1]).all()
    model = probe.EmbeddingClassifier(
        torch.from_numpy(problem.embeddings), 3, torch.from_numpy(problem.pairs)
    )
    assert model.representations().shape == (12, 32)
    model().sum().backward()
    assert model.embeddings.grad[problem.pairs[0, 1]].abs().sum() > 0


@pytest.mark.parametrize(
    "field, value",
    [
        ("steps", 0),
        ("steps", -5),
        ("lr", 0.0),
        ("lr", -1e-3),
        ("metric_every", 0),
        ("sample_size", 1),
        ("limit", 1),
        ("steps", 2.5),
    ],
)
def test_settings_out_of_range_are_one_line_errors(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field.replace("lr", "learning rate")):
        probe.ProbeConfig(**{field: value})


def test_sample_size_larger_than_data_is_rejected() -> None:
    with pytest.raises(ConfigError, match="sample_size 5000 is larger than the data"):
        _rows(probe.ProbeConfig(data="demo", limit=60, steps=2, sample_size=5000))


def test_sentences_without_labels_are_rejected(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("one sentence\nanother sentence\n")
    with pytest.raises(DataError, match="needs labelled sentences"):
        _rows(probe.ProbeConfig(data=str(tmp_path / "plain.txt"), steps=2))


def test_runner_writes_probe_run_folder(tmp_path: Path) -> None:
    summary = runner.run_experiment(
        "probe", probe.ProbeConfig(data="demo", limit=60, steps=3), tmp_path / "run"
    )
    frame = runlog.read_metrics(tmp_path / "run")
    assert frame.columns.tolist() == PROBE_HEADER
    assert frame["step"].tolist() == [0, 1, 2, 3]
    assert summary["final"]["step"] == 3 and "pearson_r" in summary
