"""Native pooling by default; the untouched encoder's STS as a run's reference (engine.simcse.baseline)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from engine.simcse import baseline
from engine.simcse.baseline import sts_baseline
from engine.training.encoder import resolve_pooler


def _st_folder(tiny_dir: Path, tmp_path: Path, pooling: dict) -> Path:
    folder = tmp_path / "st-model"
    shutil.copytree(tiny_dir, folder)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return folder


def test_the_default_pooler_is_native() -> None:
    from engine.simcse.config import SimCSEConfig

    assert SimCSEConfig().pooler == "native"
    for explicit in ("cls", "cls-mlp", "avg"):
        assert resolve_pooler(explicit, "anything, not read") == explicit


def test_native_reads_the_sentence_transformers_pooling(tiny_dir: Path, tmp_path: Path) -> None:
    assert resolve_pooler("native", None) == "avg"  # the bundled all-MiniLM-L6-v2: mean pooling
    assert resolve_pooler("native", str(tiny_dir)) == "cls"  # a BERT without a pooling config
    mean = _st_folder(tiny_dir, tmp_path / "a", {"pooling_mode_mean_tokens": True})
    assert resolve_pooler("native", str(mean)) == "avg"
    cls_old = _st_folder(tiny_dir, tmp_path / "b", {"pooling_mode_cls_token": True})
    assert resolve_pooler("native", str(cls_old)) == "cls"
    cls_new = _st_folder(tiny_dir, tmp_path / "c", {"pooling_mode": "cls"})  # sentence-transformers >= 5
    assert resolve_pooler("native", str(cls_new)) == "cls"


def test_a_saved_encoder_keeps_its_pooler(variant_free_tiny) -> None:
    from engine.encoders import make_mlp, save_encoder

    encoder = variant_free_tiny("cls")
    encoder.mlp = make_mlp(encoder.hidden_size)
    save_encoder(encoder, "with-mlp", {})
    assert resolve_pooler("native", "with-mlp") == "cls-mlp"
    save_encoder(variant_free_tiny("avg"), "mean", {})
    assert resolve_pooler("native", "mean") == "avg"


@pytest.fixture
def variant_free_tiny(tiny_dir: Path):
    from engine.encoders import load_encoder

    return lambda pooling: load_encoder(str(tiny_dir), pooling=pooling, device="cpu")


def test_the_baseline_equals_an_independent_computation_and_is_cached(
    tiny_dir: Path, own_cache: Path, monkeypatch
) -> None:
    from engine.encoders import load_encoder
    from engine.simcse.config import SimCSEConfig
    from engine.training.data import load_eval

    got = sts_baseline(str(tiny_dir), "demo-pairs", 30, seed=3, max_len=16, device="cpu")
    assert got["pooler"] == "cls" and got["pooling"] == "cls_before_pooler"
    evalset = load_eval(SimCSEConfig(encoder=str(tiny_dir), eval="demo-pairs", eval_limit=30, seed=3))
    model = load_encoder(str(tiny_dir), pooling="cls_before_pooler", device="cpu", max_length=16)
    vectors = model.encode(evalset.sentences).astype(np.float64)
    a, b = vectors[evalset.left], vectors[evalset.right]
    cosines = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert got["sts_spearman"] == pytest.approx(spearmanr(cosines, evalset.gold)[0], abs=1e-6)
    assert len(list((own_cache / "baselines").glob("sts-*.json"))) == 1

    def fail(*args, **kwargs):
        raise AssertionError("measured again instead of read from the cache")

    monkeypatch.setattr(baseline, "_measure", fail)
    assert sts_baseline(str(tiny_dir), "demo-pairs", 30, seed=3, max_len=16, device="cpu") == got
    with pytest.raises(AssertionError, match="measured again"):  # another subset is another key
        sts_baseline(str(tiny_dir), "demo-pairs", 30, seed=4, max_len=16, device="cpu")


def test_a_native_run_starts_at_its_baseline(tiny_config) -> None:
    """Step 0 evaluates the untouched encoder at the resolved pooler: in float32 it is the baseline."""
    from engine.runlog.events import Row
    from engine.simcse.train import summarize, train_simcse

    config = tiny_config(steps=2, eval_every=2, max_len=16, precision="fp32")
    rows = [{"step": e.step, **e.values} for e in train_simcse(config) if isinstance(e, Row)]
    summary = summarize(rows, config)
    assert summary["pooler_resolved"] == "cls" and summary["sts_baseline_pooler"] == "cls"
    assert summary["sts_baseline"] == pytest.approx(rows[0]["sts_spearman"], abs=1e-6)


def test_a_failing_baseline_never_loses_the_summary(tiny_config, monkeypatch) -> None:
    from engine.simcse.train import summarize

    def broken(*args, **kwargs):
        raise OSError("disk gone")

    monkeypatch.setattr("engine.simcse.train.sts_baseline", broken)
    summary = summarize([{"step": 0, "sts_spearman": 0.5}], tiny_config())
    assert "disk gone" in summary["sts_baseline_error"] and summary["sts_spearman_start"] == 0.5
