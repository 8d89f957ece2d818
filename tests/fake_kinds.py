"""Register a test module's own small experiment for one test (the runner's and the job registry's tests)."""

from __future__ import annotations

import pytest

from engine.runlog import runner


def register(monkeypatch: pytest.MonkeyPatch, kind: str, module: str, columns: tuple[str, ...]) -> str:
    """Register experiment ``kind`` of ``module`` (its ``<Kind>Config`` and ``<kind>_generator``), logging
    ``columns``, until the test ends; returns ``kind``."""
    experiment = runner.Experiment(
        kind=kind,
        title=kind,
        config_class=f"{module}:{kind.title()}Config",
        generator=f"{module}:{kind}_generator",
        columns=columns,
    )
    monkeypatch.setitem(runner.EXPERIMENTS, kind, experiment)
    return kind
