"""Every command's ``--help`` prints its usage and exits 0 (a ``%`` in a help text once crashed argparse)."""

from __future__ import annotations

import pytest

from engine.cli import build_parser, main
from engine.experiments import EXPERIMENTS

COMMANDS = [*EXPERIMENTS, "settings"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_prints_usage_and_exits_zero(command: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--help"] if command is None else [command, "--help"]
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m engine")
    if command is not None:
        assert command in out.splitlines()[0]


def test_every_registered_experiment_is_a_command() -> None:
    subcommands = build_parser()._subparsers._group_actions[0].choices
    assert set(COMMANDS) <= set(subcommands)


def test_settings_lists_every_variable(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.core import settings

    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    for row in settings.table():
        assert row["variable"] in out


def test_the_simcse_help_shows_percent_signs_literally(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simcse", "--help"])
    assert "%%" not in capsys.readouterr().out


def test_building_the_parser_leaves_torch_unimported() -> None:
    """The CLI's parser (every command's flags and help) is built without importing torch: ``--help`` answers
    at once, and a sweep's driver on Ray, which trains nothing itself, starts without it (its workers import
    torch). Checked in a fresh interpreter, where nothing else has imported torch yet."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from engine.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(name for name in ('torch', 'transformers') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
