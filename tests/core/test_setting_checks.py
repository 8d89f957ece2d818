"""Every setting, any value (issue 47, harmful cases 7 and 8): a value is used or refused in one line naming
its variable, in every command before any work; a float setting never takes NaN or an infinity."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import cli
from engine.core import settings as lab_settings
from engine.core.errors import ConfigError
from engine.core.setting_checks import check_all, get_or_default, problems
from engine.core.settings import REPO_ROOT, SETTINGS

#: every setting read from an EMBEDLAB_* variable (the others are torch's, the hub's and Ray's own)
LAB = sorted(name for name, s in SETTINGS.items() if s.env and s.env.startswith("EMBEDLAB_"))
#: any text an environment variable can hold (no NUL, no lone surrogate)
ANY_VALUE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
SPECIAL = st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "1e309", "1e23", "", " ", "abc", "2", "0x10"])


@settings(max_examples=600, deadline=None)
@given(name=st.sampled_from(LAB), value=ANY_VALUE | SPECIAL)
def test_any_value_of_any_setting_is_used_or_one_line(name: str, value: str) -> None:
    with pytest.MonkeyPatch.context() as patch:  # one variable set per example
        patch.setenv(SETTINGS[name].env, value)
        try:
            got = lab_settings.get(name)
        except ConfigError as err:
            line = str(err)
            assert "\n" not in line and line.startswith(SETTINGS[name].env) and len(line) < 300
            assert problems() == [line]
            with pytest.raises(ConfigError):
                check_all()
            assert get_or_default(name) == lab_settings.default(name)
            return
        if SETTINGS[name].kind == "float":
            assert math.isfinite(got)
        assert problems() == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(LAB), value=ANY_VALUE | SPECIAL)
def test_every_command_starts_with_a_bad_setting_as_one_line(capsys, name, value) -> None:
    """``python -m engine settings`` (in this process): exit 0, or exit 2 with one line and no traceback."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SETTINGS[name].env, value)
        code = cli.main(["settings"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code != 0:
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith(f"error: {SETTINGS[name].env}")


@pytest.mark.parametrize("name", sorted(n for n in LAB if SETTINGS[n].kind == "float"))
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_a_float_setting_refuses_nan_and_infinities(monkeypatch, name: str, value: str) -> None:
    """Harmful case 7: EMBEDLAB_LIVE_SECONDS=nan passed both bounds (the live view then drew a JavaScript
    SyntaxError); MAX_FILE_MB=nan, HUB_TIMEOUT_SECONDS=inf gave raw errors, SNAPSHOT_CAP_MB=nan turned the
    cap off."""
    monkeypatch.setenv(SETTINGS[name].env, value)
    with pytest.raises(ConfigError, match="must be a finite number"):
        lab_settings.get(name)


@pytest.mark.parametrize("command", [["settings"], ["probe", "--data", "demo", "--out", "x"], ["results"]])
def test_a_bad_setting_is_one_line_in_every_command(command: list[str]) -> None:
    """Harmful case 8: EMBEDLAB_MALLOC_TUNING=abc was a full traceback in every command (read in cli.main
    before its error handler)."""
    env = {**os.environ, "EMBEDLAB_MALLOC_TUNING": "abc"}
    done = subprocess.run(
        [sys.executable, "-m", "engine", *command],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "error: EMBEDLAB_MALLOC_TUNING must be 1 or 0, got 'abc'\n"
