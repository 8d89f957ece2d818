"""The JEPA mask range (issue 37, item 6): the share of the words masked is drawn from mask_min to mask_max,
so an inverted range is refused in one line (config, command line), and an equal one is a fixed share."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import cli
from engine.core.errors import ConfigError
from engine.jepa.config import JEPAConfig

SHARES = st.floats(min_value=0.0, max_value=0.9, allow_nan=False)


@given(SHARES, SHARES)
def test_a_range_is_kept_as_given_or_refused_when_inverted(low: float, high: float) -> None:
    if low <= high:
        config = JEPAConfig(mask_min=low, mask_max=high)
        assert (config.mask_min, config.mask_max) == (low, high)
        return
    with pytest.raises(ConfigError, match=r"^mask_min \(.+\) must not exceed mask_max \(.+\)") as caught:
        JEPAConfig(mask_min=low, mask_max=high)
    assert "\n" not in str(caught.value)


def test_the_command_line_refuses_an_inverted_range(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert cli.main(["jepa", "--mask-min", "0.9", "--mask-max", "0", "--out", str(out)]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        "error: mask_min (0.9) must not exceed mask_max (0): the share of the words masked is drawn from "
        "mask_min to mask_max"
    )
    assert not out.exists()
