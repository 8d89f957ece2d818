"""A damaged run folder or file stays with its run: the other runs' charts, downloads and listing stay."""

from __future__ import annotations

import numpy as np
from apphelpers import APP, charts_drawn, errors
from streamlit.testing.v1 import AppTest

from engine import runlog
from engine.core import paths

COLUMNS = ["step", "loss", "accuracy", "isoscore", "silhouette", "seconds"]


def _probe_run(name: str) -> str:
    folder = paths.runs_dir() / name
    writer = runlog.RunWriter(
        folder, COLUMNS, {"kind": "probe", "name": name, "data": "demo", "steps": 2, "snapshot_every": 1}
    )
    writer.save_points([f"sentence {i}" for i in range(8)], ["a", "b"] * 4)
    for step in range(3):
        writer.save_snapshot(step, np.random.default_rng(step).normal(size=(8, 4)))
        writer.append(
            {
                "step": step,
                "loss": 1.0 / (step + 1),
                "accuracy": 0.5,
                "isoscore": 0.5 - step / 10,
                "silhouette": step / 10,
                "seconds": step,
            }
        )
    writer.finish("finished")
    return name


def test_a_garbage_snapshot_and_a_bad_status_hide_nothing_else(fresh_registry) -> None:
    good, broken, odd = _probe_run("good-run"), _probe_run("broken-run"), _probe_run("odd-run")
    for snapshot in (paths.runs_dir() / broken / runlog.SNAPSHOTS).iterdir():
        snapshot.write_bytes(b"\x93NUMPY garbage")
    status = runlog.read_json(paths.runs_dir() / odd / runlog.STATUS)
    status["started"] = "yesterday"
    runlog.write_json_atomic(paths.runs_dir() / odd / runlog.STATUS, status)

    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    app.switch_page("views/isotropy.py").run()
    picker = app.multiselect(key="probe.shown")
    assert all(any(name in option for option in picker.options) for name in (good, broken, odd))
    picker.set_value([good, broken]).run()
    assert not app.exception and not errors(app)
    warnings = [w.value for w in app.warning]
    assert any("broken-run" in w and "step\\_000002.npy is damaged" in w for w in warnings), warnings
    assert charts_drawn(app) >= 4  # the metric curves of both runs, and the good run's projection
    assert len(app.get("download_button")) >= 2


def test_a_malformed_metrics_row_is_skipped_and_its_count_shown(fresh_registry) -> None:
    run = _probe_run("row-run")
    metrics = paths.runs_dir() / run / "metrics.csv"
    lines = metrics.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "1,not-a-number,garbage")  # one malformed row between two good ones
    metrics.write_text("\n".join(lines) + "\n", encoding="utf-8")

    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    app.switch_page("views/isotropy.py").run()
    app.multiselect(key="probe.shown").set_value([run]).run()
    assert not app.exception and not errors(app)
    notes = [caption.value for caption in app.caption]
    assert any("row-run" in note and "1 malformed row(s) of metrics.csv skipped" in note for note in notes), (
        notes
    )
    assert charts_drawn(app) >= 3  # the run's good rows are still drawn
