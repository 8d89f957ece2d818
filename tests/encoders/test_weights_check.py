"""A checkpoint that does not fit its model is an error, never a silent start from random weights."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.core.errors import EncoderError
from engine.encoders import load_encoder


def _copy_with(tiny_dir: Path, tmp_path: Path, edit) -> Path:
    folder = tmp_path / "edited"
    shutil.copytree(tiny_dir, folder)
    weights = folder / "model.safetensors"
    state = load_file(str(weights))
    save_file(edit(dict(state)), str(weights))
    return folder


def test_missing_weights_are_an_error_naming_them(tiny_dir: Path, tmp_path: Path) -> None:
    folder = _copy_with(
        tiny_dir, tmp_path, lambda state: {k: v for k, v in state.items() if "layer.1." not in k}
    )
    with pytest.raises(EncoderError, match=r"missing weights \(e\.g\. .*layer\.1\..*\).*would be random"):
        load_encoder(str(folder), device="cpu")


def test_weights_of_another_model_are_an_error(tiny_dir: Path, tmp_path: Path) -> None:
    folder = _copy_with(
        tiny_dir, tmp_path, lambda state: {**state, "decoder.extra.weight": torch.zeros(2, 2)}
    )
    with pytest.raises(EncoderError, match="weights of another model"):
        load_encoder(str(folder), device="cpu")


def test_a_pretraining_head_is_fine(tiny_dir: Path, tmp_path: Path) -> None:
    folder = _copy_with(tiny_dir, tmp_path, lambda state: {**state, "cls.predictions.bias": torch.zeros(4)})
    assert load_encoder(str(folder), device="cpu").encode(["x"]).shape == (1, 16)


def test_the_user_may_allow_partial_weights(tiny_dir: Path, tmp_path: Path, monkeypatch) -> None:
    folder = _copy_with(
        tiny_dir, tmp_path, lambda state: {k: v for k, v in state.items() if "layer.1." not in k}
    )
    monkeypatch.setenv("EMBEDLAB_ALLOW_PARTIAL_WEIGHTS", "1")
    assert load_encoder(str(folder), device="cpu").encode(["x"]).shape == (1, 16)
