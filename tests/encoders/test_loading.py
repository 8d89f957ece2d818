"""Resolution order, default poolings per source, errors for bad folders/ids, trust_remote_code never on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.core import hub
from engine.core.errors import ConfigError, EncoderError
from engine.encoders import load_encoder
from engine.encoders.loading import resolve_source
from engine.encoders.native import simcse_pooling, st_settings


def test_bundled_aliases_resolve_to_the_package() -> None:
    for alias in (None, "bundled", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        source = resolve_source(alias)
        assert source.kind == "bundled" and source.pooling == "avg" and source.normalize
        assert source.max_length == 256


def test_plain_folder_defaults_to_avg(tiny_dir: Path) -> None:
    encoder = load_encoder(tiny_dir, device="cpu")
    assert encoder.pooling == "avg" and not encoder.normalize and encoder.mlp is None
    assert encoder.max_length == 64  # the model's max_position_embeddings
    assert encoder.encode(["hello there", "x"]).shape == (2, 16)
    assert (
        load_encoder(str(tiny_dir), pooling="cls_before_pooler", device="cpu").pooling == "cls_before_pooler"
    )


def test_simcse_checkpoints_get_their_pooler(tiny_dir: Path, tmp_path: Path) -> None:
    assert simcse_pooling("princeton-nlp/unsup-simcse-bert-base-uncased") == "cls_before_pooler"
    assert simcse_pooling("princeton-nlp/sup-simcse-roberta-large") == "cls"
    assert simcse_pooling("bert-base-uncased") is None
    for name, pooling in (("unsup-simcse-tiny", "cls_before_pooler"), ("sup-simcse-tiny", "cls")):
        folder = tmp_path / name
        shutil.copytree(tiny_dir, folder)
        encoder = load_encoder(folder, device="cpu")
        assert encoder.pooling == pooling
    # sup: the model's own pooler output (dense + tanh over [CLS]) is the embedding
    batch = encoder.tokenize(["a sentence"])
    with torch.no_grad():
        want = encoder.model(**batch).pooler_output.numpy()
    assert np.allclose(encoder.encode(["a sentence"]), want, atol=1e-6)


def test_sentence_transformers_layout_is_read(tmp_path: Path) -> None:
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(
        json.dumps(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            ]
        )
    )
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    got = st_settings(lambda rel: tmp_path / rel)
    assert got == {"pooling": "cls_before_pooler", "normalize": False, "max_length": 128}
    assert st_settings(lambda rel: tmp_path / "absent" / rel) == {}


def test_folder_without_config_is_not_a_model(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"junk")
    with pytest.raises(EncoderError, match="is not a model: no config.json"):
        load_encoder(tmp_path)
    with pytest.raises(EncoderError, match="is a file"):
        load_encoder(tmp_path / "weights.bin")
    with pytest.raises(EncoderError, match="does not exist"):
        load_encoder(str(tmp_path / "missing"))


def test_broken_model_folder_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(EncoderError) as info:
        load_encoder(tmp_path)
    assert "\n" not in str(info.value)


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hub reachability probes made (each still runs)."""
    made: list[str] = []
    real = hub.probe_repo

    def probe(repo_id: str, *args, **kwargs):
        made.append(repo_id)
        return real(repo_id, *args, **kwargs)

    monkeypatch.setattr(hub, "probe_repo", probe)
    return made


def test_unknown_hub_id_offline_fails_without_a_probe(probes: list[str]) -> None:
    with pytest.raises(EncoderError, match="offline/unreachable"):
        load_encoder("nobody-here/no-such-encoder-xyz")
    assert probes == []  # HF_HUB_OFFLINE (conftest): no network at all


def test_unreachable_hub_fails_after_one_bounded_probe(
    monkeypatch: pytest.MonkeyPatch, probes: list[str]
) -> None:
    monkeypatch.setattr(hub, "is_offline", lambda: False)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("https_proxy", raising=False)
    monkeypatch.setenv("EMBEDLAB_HUB_TIMEOUT_SECONDS", "0.2")
    monkeypatch.setenv("HF_ENDPOINT", "http://10.255.255.1:81")  # non-routable: connect hangs or fails
    hub._probe_cache.clear()
    with pytest.raises(EncoderError, match="offline/unreachable"):
        load_encoder("nobody-here/another-missing-encoder")
    assert probes == ["nobody-here/another-missing-encoder"]


@pytest.mark.parametrize("bad", ["a/b/c/d", "bad id with spaces", "org/..", "org/name--x", "é/ü"])
def test_invalid_hub_ids(bad: str) -> None:
    with pytest.raises(EncoderError):
        load_encoder(bad)


def test_bad_settings(tiny_dir: Path) -> None:
    with pytest.raises(ConfigError, match="unknown pooling"):
        load_encoder(tiny_dir, pooling="max")
    with pytest.raises(ConfigError, match="exceeds"):
        load_encoder(tiny_dir, max_length=10_000)
    with pytest.raises(ConfigError):
        load_encoder(tiny_dir, max_length=1)
    with pytest.raises(ConfigError):
        load_encoder(tiny_dir, device="warp-drive")
    assert load_encoder(tiny_dir, max_length=16).max_length == 16


EVIL = """
from pathlib import Path
Path(__file__).with_name("EXECUTED").write_text("remote code ran")
from transformers import BertModel as EvilModel  # noqa
"""


@pytest.mark.parametrize("model_type", ["bert", "evil-model"])
def test_remote_code_is_never_executed(tiny_dir: Path, tmp_path: Path, model_type: str) -> None:
    folder = tmp_path / "remote"
    shutil.copytree(tiny_dir, folder)
    config = json.loads((folder / "config.json").read_text())
    config["model_type"] = model_type
    config["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModel": "evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "evil.py").write_text(EVIL)
    try:
        encoder = load_encoder(folder, device="cpu")
        assert type(encoder.model).__name__ == "BertModel"
    except EncoderError as err:
        assert "\n" not in str(err)
    assert not (folder / "EXECUTED").exists()


def _fake_hub_cache(root: Path, repo_id: str, files_from: Path) -> None:
    """The huggingface_hub cache layout: models--org--name/{refs/main, snapshots/<rev>/...}."""
    rev = "0123456789abcdef0123456789abcdef01234567"
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(rev)
    shutil.copytree(files_from, repo / "snapshots" / rev)


def test_cached_hub_checkpoints_load_offline_with_simcse_poolers(
    tiny_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, probes: list[str]
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    for repo_id in ("princeton-nlp/unsup-simcse-tiny", "princeton-nlp/sup-simcse-tiny"):
        _fake_hub_cache(tmp_path / "hub", repo_id, tiny_dir)
    unsup = load_encoder("princeton-nlp/unsup-simcse-tiny", device="cpu")
    sup = load_encoder("princeton-nlp/sup-simcse-tiny", device="cpu")
    assert probes == []  # offline with a complete cache: no network wait at all
    assert (unsup.pooling, sup.pooling) == ("cls_before_pooler", "cls")
    assert unsup.base_model == "princeton-nlp/unsup-simcse-tiny"
    reference = load_encoder(tiny_dir, pooling="cls_before_pooler", device="cpu")
    assert np.array_equal(unsup.encode(["offline is fine"]), reference.encode(["offline is fine"]))


def test_handed_over_encoder_is_returned_once_for_the_same_settings(tiny_dir: Path) -> None:
    from engine.encoders.loading import hand_over

    warm = load_encoder(str(tiny_dir), pooling="avg")
    hand_over(warm, str(tiny_dir), pooling="avg")
    assert load_encoder(str(tiny_dir), pooling="cls") is not warm  # other settings: a fresh load
    assert load_encoder(str(tiny_dir), pooling="avg") is warm
    again = load_encoder(str(tiny_dir), pooling="avg")  # consumed: the next call loads anew
    assert again is not warm and again.fingerprint == warm.fingerprint
