"""``--save-encoder`` is checked before any training: a reserved or taken name fails at once, in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main

FAST = ["--steps", "1", "--batch-size", "4", "--eval-limit", "8"]


def test_a_reserved_name_fails_before_training(tmp_path: Path, own_cache: Path, capsys) -> None:
    code = main(["simcse", "--out", str(tmp_path / "run"), "--save-encoder", "all-MiniLM-L6-v2", *FAST])
    assert code == 2
    assert "reserved for the bundled encoder" in capsys.readouterr().err
    assert not (tmp_path / "run" / "metrics.csv").exists()


def test_a_taken_cleaned_name_needs_force(tmp_path: Path, own_cache: Path, capsys) -> None:
    (own_cache / "encoders" / "my-enc").mkdir(parents=True)
    code = main(["simcse", "--out", str(tmp_path / "run"), "--save-encoder", "my enc!", *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert "--save-encoder: an encoder named 'my-enc' (from 'my enc!') already exists" in err
    assert "pass --force" in err
    assert not (tmp_path / "run" / "metrics.csv").exists()


def test_the_config_checks_the_name_too(own_cache: Path) -> None:
    from engine.core.errors import ConfigError
    from engine.simcse.config import SimCSEConfig
    from engine.simcse.train import train_simcse

    (own_cache / "encoders" / "taken").mkdir(parents=True)
    with pytest.raises(ConfigError, match="already exists"):
        next(iter(train_simcse(SimCSEConfig(save_encoder="taken", steps=1))))


def test_a_saved_encoder_says_where_it_went(tmp_path: Path, own_cache: Path, tiny_dir: Path, capsys) -> None:
    """The run ends with the encoder's folder on stderr (the JSON summary stays alone on stdout)."""
    argv = ["simcse", "--out", str(tmp_path / "run"), "--save-encoder", "mine", "--encoder", str(tiny_dir)]
    code = main([*argv, *FAST, "--train", "demo", "--eval", "demo-pairs", "--device", "cpu"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"encoder saved to {own_cache / 'encoders' / 'mine'}" in err
    assert (own_cache / "encoders" / "mine").is_dir()
