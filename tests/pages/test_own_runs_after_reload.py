"""A browser's own runs stay its own across a reload (issue 55, minor): on e23a065 a reloaded tab listed the
run it had started as "started elsewhere" (a new session, its session state gone). The tab's URL now carries
an owner token (``?owner=``, made at its first Start, 128 random bits) that the server maps to the runs it
queued; a reload keeps the URL, so the run is this tab's again (■ Stop). Another browser, or a token the
server never issued, still sees it as started elsewhere."""

from __future__ import annotations

from apphelpers import APP, wait_idle
from streamlit.testing.v1 import AppTest
from waiting import wait_for


def isotropy(owner: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    if owner is not None:
        at.query_params["owner"] = owner
    at.switch_page("views/isotropy.py").run()
    return at


def elsewhere(at: AppTest) -> bool:
    return any("Runs started elsewhere" in expander.label for expander in at.sidebar.expander)


def test_a_reloaded_tab_keeps_its_run_and_a_stranger_does_not_get_it(fresh_registry) -> None:
    from ui import runs

    first = isotropy()
    first.number_input(key="probe.steps").set_value(100_000)
    first.number_input(key="probe.limit").set_value(120)
    first.run()
    first.button(key="probe.start").click().run()
    job = runs.registry().jobs()[-1]
    wait_for(lambda: job.rows.last_step is not None, 120, "the run to train")
    token = first.query_params["owner"]
    token = token[0] if isinstance(token, list) else token
    assert len(token) >= 20
    reloaded = isotropy(owner=token)
    assert not elsewhere(reloaded) and "probe.stop" in {b.key for b in reloaded.button}
    for stranger in (isotropy(), isotropy(owner="A" * len(token))):
        assert elsewhere(stranger) and "probe.stop" not in {b.key for b in stranger.button}
    reloaded.button(key="probe.stop").click().run()
    wait_idle()
    assert job.state == "stopped"
