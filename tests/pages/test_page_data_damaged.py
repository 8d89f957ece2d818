"""The Data page lists the run folders that cannot be read as runs, with the reason, and deletes one only
after a confirmation (issue 24, item 9)."""

from __future__ import annotations

from apphelpers import errors

from engine import runlog
from engine.core import paths


def test_damaged_run_folders_are_listed_and_deleted_after_confirmation(app) -> None:
    good = runlog.RunWriter(paths.runs_dir() / "good", ["step"], {"kind": "probe"})
    good.append({"step": 0})
    good.finish("finished")
    (paths.runs_dir() / "broken").mkdir()
    (paths.runs_dir() / "broken" / runlog.CONFIG).write_text("{not json")
    app.switch_page("views/data.py").run()
    assert not app.exception and not errors(app)
    assert any("broken" in m.value and "JSONDecodeError" in m.value for m in app.markdown)
    delete = app.button(key="damaged.delete.broken")
    assert delete.disabled
    app.checkbox(key="damaged.confirm.broken").check().run()
    app.button(key="damaged.delete.broken").click().run()
    assert not app.exception and not errors(app)
    assert not (paths.runs_dir() / "broken").exists() and (paths.runs_dir() / "good").exists()
    assert not any("damaged run folder" in (e.label or "") for e in app.expander)
