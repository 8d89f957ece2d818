"""Compare page: lists runs on disk (incl. CLI runs), overlays them, offers combined downloads."""

from __future__ import annotations

import threading

from apphelpers import csv_of, errors

from engine import paths
from engine.probe import ProbeConfig
from engine.runner import run_experiment


def test_compare_overlays_runs_found_on_disk(fresh_registry, downloads) -> None:
    from apphelpers import APP
    from streamlit.testing.v1 import AppTest

    for seed in (0, 1):
        config = ProbeConfig(data="demo", limit=60, steps=3, seed=seed)
        run_experiment("probe", config, paths.runs_dir() / f"cli-{seed}", threading.Event())
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/compare.py").run()
    assert not at.exception and not errors(at)
    picker = at.multiselect(key="all.shown")
    picker.set_value([o for o in picker.options if "cli" in o][:2] or picker.options[:2]).run()
    ids = at.multiselect(key="all.shown").value
    assert len(ids) == 2
    buttons = {b.label: b for b in at.get("download_button")}
    both = csv_of(buttons["⬇ shown runs (one CSV)"], downloads)
    assert both["run"].nunique() == 2 and len(both) == 8
    assert len(at.get("plotly_chart")) >= 4
