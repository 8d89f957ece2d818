"""Compare page: lists runs on disk (incl. CLI runs), overlays them, offers combined downloads."""

from __future__ import annotations

import threading

from apphelpers import charts_drawn, csv_of, errors

from engine.core import paths
from engine.probe import ProbeConfig
from engine.runlog.runner import run_experiment


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
    both = csv_of(buttons["shown runs (one CSV)"], downloads)
    assert both["run"].nunique() == 2 and len(both) == 8
    assert charts_drawn(at) >= 4


def _backdate(run_dir, days: float) -> None:
    """A run that ended ``days`` ago: its status's times and its files' times moved back."""
    import json
    import os
    import time

    from engine import runlog

    then = time.time() - days * 86_400
    status = json.loads((run_dir / runlog.STATUS).read_text())
    status.update(started=then, ended=then + 1)
    (run_dir / runlog.STATUS).write_text(json.dumps(status))
    for path in run_dir.iterdir():
        os.utime(path, (then, then))


def test_compare_shows_names_sizes_renames_and_deletes_old_runs_never_a_running_one(fresh_registry) -> None:
    import json

    from apphelpers import APP, run_on_disk
    from streamlit.testing.v1 import AppTest

    from engine import runlog
    from engine.cli import main

    named = paths.runs_dir() / "cli-named"
    argv = ["probe", "--data", "demo", "--limit", "60", "--steps", "2", "--out", str(named)]
    assert main([*argv, "--name", "Named on the CLI"]) == 0
    old = run_on_disk("old-run")
    _backdate(paths.runs_dir() / old, 3)
    run_on_disk("new-run")
    live = runlog.RunWriter(
        paths.runs_dir() / "live-run", ["step", "loss"], {"kind": "probe", "name": "live"}
    )
    try:
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.run()
        at.switch_page("views/compare.py").run()
        assert not at.exception and not errors(at)
        table = at.dataframe[0].value.set_index("run")
        assert table.loc["Named on the CLI", "settings"].startswith("probe · demo · 2 steps")
        assert table.loc["Named on the CLI", "size"].endswith(("KB", "MB"))
        assert table.loc["live", "state"] == "running"
        assert any(c.value.startswith("On disk: runs") for c in at.caption)

        at.selectbox(key="compare.rename.pick").set_value("cli-named")
        at.text_input(key="compare.rename.name").input("  Renamed\tin class ").run()
        at.button(key="compare.rename").click().run()
        assert not at.exception and not errors(at)
        assert "Renamed in class" in at.dataframe[0].value["run"].tolist()
        assert json.loads((named / runlog.CONFIG).read_text())["name"] == "Renamed in class"

        assert "live-run" not in at.multiselect(key="compare.delete.pick").options
        at.number_input(key="compare.delete.days").set_value(1.0).run()
        old_runs = at.checkbox(key="compare.delete.old")
        assert "the 1 ended run(s) older than 1 day(s)" in old_runs.label
        old_runs.check().run()
        assert at.button(key="compare.delete").proto.disabled is True  # not confirmed yet
        at.checkbox(key="compare.delete.confirm").check().run()
        at.button(key="compare.delete").click().run()
        assert not at.exception and not errors(at)
        left = {p.name for p in paths.runs_dir().iterdir()}
        assert old not in left and {"new-run", "cli-named", "live-run"} <= left
    finally:
        live.finish("stopped")
