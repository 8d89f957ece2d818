import numpy as np
import pytest

from engine.core.errors import ConfigError
from engine.core.validate import require_choice, require_int, require_number


@pytest.mark.parametrize("value", [0, 5, np.int64(3)])
def test_require_int_accepts_integers_in_range(value: int) -> None:
    require_int("steps", value, 0, 5)


@pytest.mark.parametrize("value", [-1, 6, 2.0, True, "3", None])
def test_require_int_rejects_with_one_line(value: object) -> None:
    with pytest.raises(ConfigError, match=r"^steps must be an integer in \[0, 5\], got"):
        require_int("steps", value, 0, 5)


def test_require_number_bounds_and_types() -> None:
    assert require_number("lr", 1, 0.0, 1.0, open_low=True) == 1.0
    assert require_number("p", 0, 0.0, 1.0) == 0.0
    for bad in (0.0, float("nan"), float("inf"), 1.5, False, "0.1"):
        with pytest.raises(ConfigError, match=r"^lr must be a number in \(0, 1\]"):
            require_number("lr", bad, 0.0, 1.0, open_low=True)


def test_require_choice_lists_the_choices() -> None:
    require_choice("mode", "sup", ("unsup", "sup"))
    with pytest.raises(ConfigError, match="mode must be one of unsup, sup, got 'x'"):
        require_choice("mode", "x", ("unsup", "sup"))
