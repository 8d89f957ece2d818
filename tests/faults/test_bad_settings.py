"""Bad settings through the CLI: one clear line on stderr, exit 2, no traceback (a data-dependent error
leaves a run folder marked failed with the same message)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import cli

#: a small probe run on the demo data
SMALL_PROBE = ("probe", "--data", "demo", "--limit", "60", "--steps", "2")


def _main(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["probe", "--steps", "-3"], "steps must be an integer"),
        (["probe", "--lr", "100"], "learning rate must be a number in"),
        (["probe", "--metric-every", "0"], "metric_every must be an integer"),
        (
            ["probe", "--data", "demo", "--limit", "60", "--steps", "2", "--sample-size", "100000"],
            "sample_size 100000 is larger than the data",
        ),
        (["probe", "--device", "cuda:7"], "cuda"),
        (["probe", "--device", "tpu-9000"], "device"),
        (["simcse", "--steps", "0"], "steps must be an integer"),
        (["simcse", "--lr", "-1"], "lr must be a number"),
        (["simcse", "--batch-size", "1"], "batch_size must be an integer"),
        (["simcse", "--temp", "0"], "temp must be a number"),
        (["simcse", "--dropout", "1.5"], "dropout must be a number"),
        (["simcse", "--same-mask", "--augment", "crop"], "cannot be combined"),
        (["simcse", "--save-encoder", "../.."], "no usable characters"),
        (
            ["simcse", "--train", "demo", "--eval", "demo-pairs", "--batch-size", "100000", "--steps", "1"],
            "batch",
        ),
    ],
)
def test_bad_setting_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str], message: str
) -> None:
    code, err = _main(capsys, *args, "--out", str(tmp_path / "run"))
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "encoder, message",
    [("no-such-org/no-such-model", "hub is offline"), ("not a valid/../id", "")],
)
def test_unknown_encoder_offline_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, encoder: str, message: str
) -> None:
    code, err = _main(capsys, *SMALL_PROBE, "--encoder", encoder, "--out", str(tmp_path / "run"))
    assert code == 2 and err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1


def test_folder_that_is_not_a_model(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "weights.bin").write_bytes(b"\x00" * 16)
    code, err = _main(capsys, *SMALL_PROBE, "--encoder", str(folder), "--out", str(tmp_path / "run"))
    assert code == 2 and "not a model" in err and len(err.strip().splitlines()) == 1
