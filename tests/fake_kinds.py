"""Register a test module's own small experiment for one test (the runner's and the job registry's tests)."""

from __future__ import annotations

import sys

import pytest

from engine import experiments
from engine.core.declaration import declare


def register(monkeypatch: pytest.MonkeyPatch, kind: str, module: str, columns: tuple[str, ...]) -> str:
    """Register experiment ``kind`` of ``module`` (its ``<Kind>Config`` and ``<kind>_generator``), logging
    ``columns``, until the test ends; returns ``kind``."""
    found = sys.modules[module]
    experiment = declare(
        kind,
        kind,
        config_class=getattr(found, f"{kind.title()}Config"),
        generator=getattr(found, f"{kind}_generator"),
        columns=columns,
        vectors=(),
    )
    monkeypatch.setitem(experiments.EXPERIMENTS, kind, experiment)
    return kind
