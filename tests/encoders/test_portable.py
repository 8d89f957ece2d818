"""Saved encoders leave the lab: ``SentenceTransformer(path)`` and the card's ``AutoModel`` code give the
lab's own embeddings (to 1e-5) for every pooling, and the card holds no absolute local paths."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.encoders import load_encoder, make_mlp, save_encoder
from engine.encoders.portable import portable_path, without_local_paths

pytest.importorskip("sentence_transformers", reason="sentence-transformers is a dev extra")

LONG = " ".join(["a rather long sentence that the maximum length must cut"] * 8)
TEXTS = ["the first sentence", "and a second one, a little longer", "third", LONG, "ünïcödé — text"]


def _blocks(readme: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme, flags=re.S)


def _run_card_block(folder: Path, needle: str) -> np.ndarray:
    """Execute the card's code block that contains ``needle`` on :data:`TEXTS`, in the folder's place."""
    (code,) = [block for block in _blocks((folder / "README.md").read_text()) if needle in block]
    code = re.sub(r'path = "cache/encoders/[^"]+"', f"path = {str(folder)!r}", code)
    scope: dict = {"sentences": TEXTS}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the card's own example, written by us
    vectors = scope["vectors"]
    return vectors.numpy() if isinstance(vectors, torch.Tensor) else np.asarray(vectors)


def _check_everywhere(encoder, name: str, *, st: bool = True) -> Path:
    want = encoder.encode(TEXTS)
    folder = save_encoder(encoder, name, {})
    lab = load_encoder(name, device="cpu").encode(TEXTS)
    np.testing.assert_allclose(lab, want, atol=1e-6)
    auto = _run_card_block(folder, "AutoModel")
    np.testing.assert_allclose(auto, want, atol=1e-5)
    if st:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(folder), device="cpu", trust_remote_code=False)
        assert model.max_seq_length == encoder.max_length
        np.testing.assert_allclose(model.encode(TEXTS, batch_size=2), want, atol=1e-5)
        np.testing.assert_allclose(_run_card_block(folder, "SentenceTransformer"), want, atol=1e-5)
    else:
        assert not (folder / "modules.json").exists()
        assert "cannot express the pooling" in (folder / "README.md").read_text()
    return folder


def test_bundled_saved_unchanged_loads_in_sentence_transformers(bundled) -> None:
    folder = _check_everywhere(bundled, "bundled-copy")
    modules = json.loads((folder / "modules.json").read_text())
    assert [m["type"].rsplit(".", 1)[-1] for m in modules] == ["Transformer", "Pooling", "Normalize"]
    assert json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"] == 256


@pytest.mark.parametrize("normalize", [True, False])
def test_simcse_cls_pooler_raw_cls_at_inference(variant, normalize: bool) -> None:
    """SimCSE ``--pooler cls``: [CLS] + MLP in training, the raw [CLS] at inference (no MLP module)."""
    torch.manual_seed(0)
    encoder = variant("cls_before_pooler", mlp=make_mlp(384), normalize=normalize, max_length=32)
    folder = _check_everywhere(encoder, "simcse-cls")
    assert not (folder / "2_Dense").exists()
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    assert pooling["pooling_mode_cls_token"] and not pooling["pooling_mode_mean_tokens"]


def test_simcse_cls_mlp_pooler_becomes_a_dense_module(variant) -> None:
    torch.manual_seed(1)
    folder = _check_everywhere(variant("cls", mlp=make_mlp(384), normalize=True, max_length=32), "cls-mlp")
    modules = json.loads((folder / "modules.json").read_text())
    assert [m["path"] for m in modules] == ["", "1_Pooling", "2_Dense", "3_Normalize"]


def test_simcse_avg_pooler(variant) -> None:
    _check_everywhere(variant("avg", normalize=True, max_length=32), "simcse-avg")


def test_cls_with_the_models_own_pooler(tiny_dir: Path) -> None:
    """``cls`` without a lab MLP is BERT's pooler output (dense + tanh): written as a Dense module."""
    encoder = load_encoder(tiny_dir, pooling="cls", device="cpu", max_length=24)
    assert encoder.mlp is None and not encoder.normalize
    folder = _check_everywhere(encoder, "bert-pooler")
    assert (folder / "2_Dense" / "model.safetensors").is_file()


def test_layer_mixing_pooling_has_no_sentence_transformers_files(variant) -> None:
    _check_everywhere(variant("avg_top2", normalize=False, max_length=40), "top2", st=False)


def test_card_holds_no_absolute_local_paths(variant, tmp_path: Path) -> None:
    card = {
        "base_model": str(tmp_path / "models" / "my-bert"),
        "config": {"data_dir": str(tmp_path / "shared" / "data"), "encoder": "~/models/x", "lr": 3e-5},
        "train_data": "wiki1m",
    }
    folder = save_encoder(variant("avg"), "portable", card)
    text = (folder / "README.md").read_text() + (folder / "embedlab.json").read_text()
    assert str(tmp_path) not in text and "~/" not in text
    meta = json.loads((folder / "embedlab.json").read_text())
    assert meta["card"]["config"]["data_dir"] == "data" and meta["card"]["base_model"] == "my-bert"
    assert meta["card"]["train_data"] == "wiki1m" and meta["card"]["config"]["lr"] == 3e-5


def test_portable_path_inside_the_repository_is_relative() -> None:
    from engine.core import settings

    assert portable_path(str(settings.REPO_ROOT / "cache" / "data")) == "cache/data"
    assert portable_path("C:\\Users\\me\\data\\") == "data"
    assert portable_path("stsb-dev (250 of 1,500 pairs)") == "stsb-dev (250 of 1,500 pairs)"
    assert without_local_paths({"a": ["/x/y", 1, None]}) == {"a": ["y", 1, None]}


def test_an_encoder_trained_from_the_cls_start_loads_in_sentence_transformers_at_cls() -> None:
    """The [CLS] start (engine.encoders.starts) saved as unsup SimCSE leaves it (raw [CLS], the MLP used in
    training only): sentence-transformers reads it with CLS pooling and gives the lab's vectors."""
    folder = _check_everywhere(load_encoder("minilm-cls", device="cpu"), "from-cls-start")
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    assert pooling["pooling_mode_cls_token"] and not pooling["pooling_mode_mean_tokens"]
