"""Saved encoders: round trip (with an MLP), card, list, rename, delete, sanitised names, atomic saves."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from waiting import wait_for

from engine.core import paths
from engine.core.errors import ConfigError, EmbedlabError, EncoderError
from engine.encoders import (
    delete_encoder,
    list_encoders,
    load_encoder,
    make_mlp,
    rename_encoder,
    save_encoder,
)

TEXTS = ["the first sentence", "and a second one, a little longer", "third"]
CARD = {
    "base_model": "sentence-transformers/all-MiniLM-L6-v2",
    "data": "demo",
    "switches": {"dropout": 0.1, "same_mask": False},
    "steps": 12,
    "metrics": {"sts_spearman": 0.81234, "alignment": float("nan")},
}


@pytest.fixture(scope="module")
def tiny(tiny_dir: Path):
    return load_encoder(tiny_dir, pooling="cls", device="cpu")


def test_round_trip_bundled_with_mlp(variant) -> None:
    torch.manual_seed(0)
    encoder = variant("cls", mlp=make_mlp(384), normalize=True)
    want = encoder.encode(TEXTS)
    path = save_encoder(encoder, "my encoder v1", CARD)
    assert path == paths.encoders_dir() / "my-encoder-v1"
    assert {"config.json", "model.safetensors", "embedlab.json", "pooler.safetensors", "README.md"} <= {
        p.name for p in path.iterdir()
    }
    loaded = load_encoder("my-encoder-v1", device="cpu")
    assert loaded.pooling == "cls" and loaded.normalize and loaded.mlp is not None
    assert np.array_equal(loaded.encode(TEXTS), want)
    readme = (path / "README.md").read_text()
    for part in ("all-MiniLM-L6-v2", "demo", "dropout", "12", "sts\\_spearman", "0.8123", "with MLP"):
        assert part in readme  # the names in the card as Markdown text: sts_spearman escaped (issue 55)
    meta = json.loads((path / "embedlab.json").read_text())
    assert meta["card"]["metrics"]["alignment"] is None and meta["mlp"] is True


def test_round_trip_plain_and_by_folder(tiny) -> None:
    plain = load_encoder(str(tiny_path := save_encoder(tiny, "tiny", {})), device="cpu")
    assert plain.pooling == "cls" and plain.mlp is None
    assert np.array_equal(plain.encode(TEXTS), tiny.encode(TEXTS))
    assert load_encoder("tiny").max_length == tiny.max_length and tiny_path.name == "tiny"


def test_list_rename_delete(tiny) -> None:
    save_encoder(tiny, "alpha", {"data": "demo"})
    save_encoder(tiny, "beta", {})
    infos = list_encoders()
    assert infos[0].bundled and infos[0].pooling == "avg"
    assert [i.name for i in infos[1:]] == ["alpha", "beta"]
    assert infos[1].card == {"data": "demo"} and infos[1].created and infos[1].path.is_dir()
    with pytest.raises(ConfigError, match="already exists"):
        rename_encoder("alpha", "beta")
    new = rename_encoder("alpha", "gamma ray")
    assert new.name == "gamma-ray" and json.loads((new / "embedlab.json").read_text())["name"] == "gamma-ray"
    assert load_encoder("gamma-ray").encode(TEXTS).shape == (3, 16)
    delete_encoder("gamma-ray")
    assert [i.name for i in list_encoders()[1:]] == ["beta"]
    with pytest.raises(EncoderError, match="no saved encoder"):
        delete_encoder("gamma-ray")
    with pytest.raises(ConfigError):
        delete_encoder("bundled")
    with pytest.raises(ConfigError, match="reserved"):
        save_encoder(tiny, "all-MiniLM-L6-v2", {})


def test_save_overwrite_choice(tiny) -> None:
    save_encoder(tiny, "same", {"steps": 1})
    save_encoder(tiny, "same", {"steps": 2})
    assert [i.card for i in list_encoders() if i.name == "same"] == [{"steps": 2}]
    with pytest.raises(ConfigError, match="already exists"):
        save_encoder(tiny, "same", {}, overwrite=False)
    assert [p.name for p in paths.encoders_dir().iterdir()] == ["same"]


def test_path_traversal_names_stay_inside(tiny, tmp_path: Path) -> None:
    root = paths.encoders_dir()
    victim = root.parent / "victim"
    victim.mkdir()
    for bad in ("..", "../..", "/", ""):
        with pytest.raises(ConfigError):
            save_encoder(tiny, bad, {})
    saved = save_encoder(tiny, "../../escape", {})
    assert saved.parent == root and saved.name == "escape"
    for bad in ("../victim", "../../victim", "/etc", "..", "victim/.."):
        with pytest.raises(EmbedlabError):
            delete_encoder(bad)
        with pytest.raises(EmbedlabError):
            rename_encoder(bad, "x")
    moved = rename_encoder("escape", "../victim")  # sanitised: lands inside root, never beside it
    assert moved == root / "victim" and victim.is_dir() and not any(victim.iterdir())


def test_corrupt_and_foreign_entries_are_skipped(tiny, caplog) -> None:
    root = paths.encoders_dir()
    save_encoder(tiny, "good", {})
    (root / "stray.txt").write_text("hello")
    (root / "foreign").mkdir()
    (root / "foreign" / "config.json").write_text("{}")
    (root / "broken").mkdir()
    (root / "broken" / "embedlab.json").write_text("{not json")
    shutil.copytree(root / "good", root / "no-config")
    (root / "no-config" / "config.json").unlink()
    shutil.copytree(root / "good", root / ".tmp-half-written")
    with caplog.at_level(logging.WARNING):
        names = [i.name for i in list_encoders() if not i.bundled]
    assert names == ["good"]
    assert "broken" in caplog.text and "foreign" in caplog.text
    with pytest.raises(EncoderError, match="corrupt"):
        load_encoder("broken")
    with pytest.raises(EncoderError, match="not a saved embedlab encoder"):
        load_encoder("foreign")
    with pytest.raises(EncoderError):
        load_encoder(".tmp-half-written")
    with pytest.raises(EncoderError, match="unfinished"):
        load_encoder(root / ".tmp-half-written")


def test_failed_save_leaves_nothing(tiny, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(tiny.tokenizer, "save_pretrained", boom)
    with pytest.raises(EncoderError, match="disk full"):
        save_encoder(tiny, "doomed", {})
    assert list(paths.encoders_dir().iterdir()) == []


def test_corrupt_mlp_file_is_a_clear_error(tiny) -> None:
    tiny.mlp = make_mlp(16)
    try:
        path = save_encoder(tiny, "with-mlp", {})
    finally:
        tiny.mlp = None
    (path / "pooler.safetensors").write_bytes(b"garbage")
    with pytest.raises(EncoderError, match="pooler.safetensors"):
        load_encoder("with-mlp")
    (path / "pooler.safetensors").unlink()
    with pytest.raises(EncoderError, match="incomplete"):
        load_encoder("with-mlp")


SAVER = """
import sys
from engine.encoders import load_encoder, save_encoder
enc = load_encoder(sys.argv[1], device="cpu")
print("ready", flush=True)
i = 0
while True:
    save_encoder(enc, f"enc{i % 3}", {"steps": i})
    print("saved", i, flush=True)
    i += 1
"""


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["after-saves", "mid-save"])
def test_killed_saves_never_leave_a_loadable_half_encoder(
    tiny_dir: Path, own_cache: Path, moment: str
) -> None:
    """SIGKILL a process that keeps saving: right after a random number of finished saves (the next save
    has just begun), or while a temp folder already holds the weights (mid-save); every listed encoder must
    load whole."""
    rng = np.random.default_rng(0)
    env = {**os.environ, "EMBEDLAB_CACHE_DIR": str(own_cache)}
    proc = subprocess.Popen([sys.executable, "-c", SAVER, str(tiny_dir)], env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        for _ in range(int(rng.integers(1, 6))):  # the child's own progress: no fixed wait
            assert proc.stdout.readline().startswith(b"saved")
        if moment == "mid-save":
            root = paths.encoders_dir()
            wait_for(lambda: any(root.glob(".tmp-*/*.safetensors")), what="a save in progress")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    listed = [info for info in list_encoders() if not info.bundled]
    assert listed  # at least one save finished: the check below is not vacuous
    for info in listed:
        assert load_encoder(info.name, device="cpu").encode(["x"]).shape == (1, 16)
