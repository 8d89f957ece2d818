"""■ Stop acts on the runs this browser session started; another session's runs are stopped only through a
separate, named action with a confirmation (two AppTest sessions share the server's one job registry)."""

from __future__ import annotations

from apphelpers import APP, wait_idle
from streamlit.testing.v1 import AppTest
from waiting import wait_for


def session() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/isotropy.py").run()
    at.number_input(key="probe.steps").set_value(100_000)
    at.number_input(key="probe.limit").set_value(120)
    at.run()
    return at


def buttons(at: AppTest) -> dict[str, object]:
    return {button.key: button for button in at.button}


def test_stop_in_one_session_leaves_another_sessions_run_going(fresh_registry) -> None:
    from ui import runs

    first, second = session(), session()
    first.button(key="probe.start").click().run()
    theirs = runs.registry().jobs()[-1]
    wait_for(lambda: theirs.rows.last_step is not None, 120, "the first session's run to train")
    second.button(key="probe.start").click().run()
    mine = runs.registry().jobs()[-1]
    assert mine is not theirs and mine.active
    second.run()
    second.button(key="probe.stop").click().run()
    wait_for(lambda: not mine.active, 60, "the second session's run to end")
    assert mine.state in ("stopped", "cancelled", "finished") and mine.state != "running"
    assert theirs.active and theirs.state == "running"  # the other tab's run goes on
    theirs.stop()
    wait_idle()


def test_runs_started_elsewhere_stop_only_after_a_confirmation(fresh_registry) -> None:
    from ui import runs

    first, second = session(), session()
    first.button(key="probe.start").click().run()
    theirs = runs.registry().jobs()[-1]
    wait_for(lambda: theirs.rows.last_step is not None, 120, "the first session's run to train")
    second.run()
    assert "probe.stop" not in buttons(second)  # nothing of this session's to stop
    stop_others = buttons(second)["probe.stop_others"]
    assert stop_others.disabled and "Stop runs started elsewhere" in stop_others.label
    assert any("Runs started elsewhere (1)" in expander.label for expander in second.expander)
    second.checkbox(key="probe.stop_others.sure").check().run()
    assert theirs.active  # ticking the box stops nothing yet
    second.button(key="probe.stop_others").click().run()
    wait_idle()
    assert theirs.state == "stopped"
