"""``python -m engine simcse``: flags -> config, a run folder, one-line errors."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.errors import ConfigError
from engine.runlog import read_json, read_metrics, read_spectrum
from engine.simcse.cli import add_arguments, config_from_args
from tests.headers import TRAINING_FIRST

REPO = Path(__file__).resolve().parents[2]


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_defaults_match_the_paper() -> None:
    config = config_from_args(_parse())
    assert (config.mode, config.dropout, config.same_mask, config.augment, config.pooler) == (
        "unsup",
        0.1,
        False,
        "none",
        "native",  # the encoder's own pooling: cls (the paper's) for a BERT without a pooling config
    )
    assert config_from_args(_parse("--pooler", "cls")).pooler == "cls"
    assert (config.batch_size, config.lr, config.max_len, config.temp, config.eval_every) == (
        64,
        3e-5,
        32,
        0.05,
        10,
    )


def test_every_flag_reaches_the_config() -> None:
    config = config_from_args(
        _parse(
            "--mode",
            "sup",
            "--train",
            "demo-nli",
            "--data-dir",
            "/data",
            "--dropout",
            "0.2",
            "--pooler",
            "cls-mlp",
            "--encoder",
            "enc",
            "--steps",
            "7",
            "--batch-size",
            "16",
            "--lr",
            "1e-4",
            "--max-len",
            "48",
            "--temp",
            "0.1",
            "--hard-negative-weight",
            "2",
            "--eval",
            "demo-pairs",
            "--eval-limit",
            "0",
            "--eval-every",
            "3",
            "--probe",
            "demo",
            "--seed",
            "5",
            "--device",
            "cpu",
            "--save-encoder",
            "mine",
        )
    )
    assert (config.mode, config.train, config.data_dir, config.dropout, config.pooler, config.encoder) == (
        "sup",
        "demo-nli",
        "/data",
        0.2,
        "cls-mlp",
        "enc",
    )
    assert (config.steps, config.batch_size, config.lr, config.max_len, config.temp) == (7, 16, 1e-4, 48, 0.1)
    assert (config.hard_negative_weight, config.eval, config.eval_limit, config.eval_every) == (
        2.0,
        "demo-pairs",
        None,
        3,
    )
    assert (config.probe, config.seed, config.device, config.save_encoder) == ("demo", 5, "cpu", "mine")
    unsup = config_from_args(_parse("--same-mask", "--augment", "none", "--dropout", "0.1"))
    assert unsup.same_mask
    crop = config_from_args(_parse("--augment", "crop", "--augment-rate", "0.3"))
    assert (crop.augment, crop.augment_rate) == ("crop", 0.3)


def test_the_same_mask_fixes_the_dropout_at_the_papers_rate_on_the_cli_as_on_the_page() -> None:
    """One rule in the config (SimCSEConfig.__post_init__): the same mask is the paper's "fixed 0.1", as the
    page's switch (which disables the rate) does; the CLI refuses ``--same-mask --dropout 0.3`` in one line
    rather than train at another rate than the one typed; without the switch, the flag's rate."""
    from engine.simcse.config import SAME_MASK_DROPOUT, SimCSEConfig

    assert config_from_args(_parse("--same-mask")).dropout == SAME_MASK_DROPOUT == 0.1
    assert SimCSEConfig(same_mask=True, dropout=0.3).dropout == 0.1
    with pytest.raises(ConfigError, match=r"^--same-mask fixes the dropout rate at 0.1 .*drop --dropout 0.3"):
        config_from_args(_parse("--same-mask", "--dropout", "0.3"))
    assert config_from_args(_parse("--dropout", "0.3")).dropout == 0.3


def test_bad_values_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        config_from_args(_parse("--steps", "-1"))
    with pytest.raises(ConfigError):
        config_from_args(_parse("--same-mask", "--augment", "delete-one-word"))
    with pytest.raises(SystemExit):
        _parse("--augment", "synonyms")


def test_cli_run_writes_the_issue_columns(tiny_dir: Path, tmp_path: Path) -> None:
    from engine.cli import main

    out = tmp_path / "run"
    flags = "--train demo --eval demo-pairs --eval-limit 20 --eval-every 2 --steps 3 --batch-size 8"
    code = main(
        [
            "simcse",
            "--encoder",
            str(tiny_dir),
            *flags.split(),
            "--device",
            "cpu",
            "--probe",
            "demo",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    frame = read_metrics(out)
    family = ["rankme", "average_cosine", "partition_isotropy"]
    assert list(frame.columns) == [
        *TRAINING_FIRST,
        *family,
        "probe_silhouette",
        "probe_isoscore",
        *(f"probe_{name}" for name in family),
        "seconds",
        "eval_seconds",
    ]
    assert frame["sts_spearman"].notna().tolist() == [True, False, True, True]
    assert frame["probe_partition_isotropy"].notna().tolist() == [True, False, True, True]
    assert read_spectrum(out).steps.tolist() == [
        0,
        2,
        3,
    ]  # the evaluation sentences' spectrum, each evaluation
    summary = read_json(out / "summary.json")
    assert summary["state"] == "finished" and "sts_spearman_best" in summary
    assert read_json(out / "config.json")["kind"] == "simcse"


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "simcse", "--lr", "0", "--out", str(tmp_path / "x")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=570,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "lr" in result.stderr
