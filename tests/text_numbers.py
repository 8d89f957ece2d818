"""The numbers a lesson's text prints, and every way the runs on screen may print theirs: what the tests of
issue 58's "the text is the runs on screen" compare (tests/lessons/test_on_screen.py, the pages' AppTest)."""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from engine.lessons.numbers import NOT_MEASURED, _format

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "docs/run-folders/cache/lessons-check/full/SimCSE-Figure-2"
NUMBER = re.compile(r"(?:(?<![\w.])[−-])?\d[\d,]*(?:\.\d+)?(?:e[−-]?\d+)?")


def numbers_in(text: str) -> list[str]:
    """The numbers a text prints, once the words that are no measurement (a citation's year, the paper's
    figure, the encoder's name: :data:`NOT_MEASURED`) are taken out."""
    for allowed in sorted(NOT_MEASURED, key=len, reverse=True):
        text = text.replace(allowed, "")
    return [token.rstrip(",") for token in NUMBER.findall(text)]


def _values(value: object) -> Iterable[object]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)
    else:
        yield value


def _printed(value: object) -> set[str]:
    """How a value of a run's files may be printed: as the lessons format it, or as written in a string."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int | float):
        return {_format(value, None), str(value)}
    if isinstance(value, str):
        return set(numbers_in(value))
    return set()


def run_values(groups: list[list[Path]]) -> set[str]:
    """Every way a number of these runs may be printed: their config and summary values, and per group the
    means and sds over its seeds of each metric's first and last logged value."""
    found: set[str] = set()
    for folders in groups:
        for folder in folders:
            for name in ("config.json", "summary.json"):
                for value in _values(json.loads((folder / name).read_text(encoding="utf-8"))):
                    found |= _printed(value)
        frames = [pd.read_csv(folder / "metrics.csv") for folder in folders]
        for column in frames[0].columns:
            logged = [frame[column].dropna() for frame in frames]
            if not all(len(values) for values in logged):
                continue
            for ends in ([float(v.iloc[0]) for v in logged], [float(v.iloc[-1]) for v in logged]):
                found.add(_format(statistics.fmean(ends), None))
                if len(ends) > 1:
                    found.add(_format(statistics.stdev(ends), None))
    return found


def strays(text: str, groups: list[list[Path]]) -> list[str]:
    allowed = run_values(groups)
    return [number for number in numbers_in(text) if number not in allowed]
