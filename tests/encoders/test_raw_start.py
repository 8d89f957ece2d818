"""A raw BERT start where one is reachable (issue 58): the Figure 2 presets start from a raw MLM BERT that the
local Hugging Face cache holds (a tiny BERT built here stands in, laid out as huggingface_hub caches a model
under ``$HF_HUB_CACHE``), offline with none they fall back to minilm-cls, and each says which start and why;
a run from the cached one trains through the real command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core import hub
from engine.encoders.starts import MINILM_CLS, RAW_FULL, RAW_LECTURE, raw_or_stand_in

REPO = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def cache_model(cache: Path, repo_id: str, source: Path) -> Path:
    """``source``'s files laid out as huggingface_hub caches ``repo_id``: ``models--ORG--NAME/snapshots/
    <commit>/`` with ``refs/main`` naming the commit (files copied, not linked to blobs)."""
    root = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = root / "snapshots" / COMMIT
    shutil.copytree(source, snapshot)
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(COMMIT, encoding="utf-8")
    return snapshot


@pytest.fixture
def offline_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Hugging Face cache of models, offline (HF_HUB_OFFLINE=1, HF_HUB_CACHE pointing at it)."""
    cache = tmp_path / "hf" / "hub"
    cache.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    return cache


def figure2_presets() -> dict:
    from engine.lessons.presets import presets

    found = presets()
    return {name: found[name] for name in ("SimCSE Figure 2", "SimCSE Figure 2 · lecture")}


def test_offline_with_nothing_cached_figure2_starts_from_minilm_cls_and_says_why(offline_cache: Path) -> None:
    full, lecture = figure2_presets().values()
    assert full.base["encoder"] == lecture.base["encoder"] == MINILM_CLS.name
    assert full.note == (
        f"Start: {MINILM_CLS.name}, the lab's stand-in for a raw BERT: {RAW_FULL} is not in the local "
        "Hugging Face cache and the hub is off (HF_HUB_OFFLINE)."
    )
    assert RAW_LECTURE in lecture.note and "stand-in" in lecture.note


def test_a_cached_raw_bert_is_the_lecture_start(offline_cache: Path, tiny_dir: Path) -> None:
    cache_model(offline_cache, RAW_LECTURE, tiny_dir)
    assert (
        hub.cached_model(RAW_LECTURE)
        == offline_cache / f"models--google--{RAW_LECTURE.split('/')[1]}" / "snapshots" / COMMIT
    )
    chosen = raw_or_stand_in(RAW_LECTURE)
    assert chosen.raw and chosen.encoder == RAW_LECTURE
    full, lecture = figure2_presets().values()
    assert (
        lecture.base["encoder"] == RAW_LECTURE and full.base["encoder"] == MINILM_CLS.name
    )  # only it cached
    assert (
        lecture.note
        == f"Start: {RAW_LECTURE}, a raw MLM BERT as in the paper, from the local Hugging Face cache."
    )


def test_a_cached_model_without_weights_is_no_start(offline_cache: Path, tiny_dir: Path) -> None:
    snapshot = cache_model(offline_cache, RAW_FULL, tiny_dir)
    (snapshot / "model.safetensors").unlink()
    assert hub.cached_model(RAW_FULL) is None and raw_or_stand_in(RAW_FULL).encoder == MINILM_CLS.name


def test_a_figure2_lecture_run_trains_from_the_cached_raw_bert(
    offline_cache: Path, tiny_dir: Path, tmp_path: Path
) -> None:
    """The lecture preset's unsup-simcse run, a few steps, by ``python -m engine simcse``, from the cache."""
    cache_model(offline_cache, RAW_LECTURE, tiny_dir)
    lecture = figure2_presets()["SimCSE Figure 2 · lecture"]
    fields = {
        **lecture.fields("unsup-simcse"),
        "steps": 2,
        "eval_every": 2,
        "snapshot_every": 0,
        "probe": None,
    }
    fields.update(eval="demo-pairs", eval_limit=None, batch_size=8)
    out = tmp_path / "run"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(offline_cache)}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "simcse", "--out", str(out), "--config-json", json.dumps(fields)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert config["encoder"] == RAW_LECTURE and summary["state"] == "finished"
    assert summary.get("pooler_resolved") == "cls"  # a plain BERT: [CLS] + MLP in training, as the paper
