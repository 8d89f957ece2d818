"""The runs a page shows survive a reload and a new tab: the picked runs are in the URL (``?runs=``), and
with nothing picked a preset's runs are shown together."""

from __future__ import annotations

from apphelpers import errors, run_on_disk

FIGURE2 = ["SimCSE Figure 2 · no dropout", "SimCSE Figure 2 · delete one word", "SimCSE Figure 2 · same mask"]


def simcse_rows(shift: float) -> list[dict]:
    return [
        {"step": s, "loss": 1.0 / (s + 1), "alignment": 0.2 + shift + s / 50, "uniformity": -1.0 - s / 10}
        for s in range(4)
    ]


def picked(app) -> list[str]:
    return list(app.multiselect(key="simcse.shown").value)


def test_a_presets_runs_are_shown_together_by_default(fresh_registry) -> None:
    from apphelpers import APP
    from streamlit.testing.v1 import AppTest

    run_on_disk("older", "simcse", rows=simcse_rows(0.0))
    made = [run_on_disk(name, "simcse", rows=simcse_rows(i / 10)) for i, name in enumerate(FIGURE2)]
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    app.switch_page("views/simcse.py").run()
    assert not app.exception and not errors(app)
    assert sorted(picked(app)) == sorted(made)  # the older run is not one of them


def test_the_picked_runs_are_in_the_url_and_come_back(fresh_registry) -> None:
    from apphelpers import APP
    from streamlit.testing.v1 import AppTest

    first = run_on_disk("first", "simcse", rows=simcse_rows(0.0))
    second = run_on_disk("second", "simcse", rows=simcse_rows(0.1))
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.run()
    app.switch_page("views/simcse.py").run()
    assert picked(app) == [second]
    app.multiselect(key="simcse.shown").set_value([first, second]).run()
    assert (
        app.query_params["runs"] == [f"{first},{second}"] or app.query_params["runs"] == f"{first},{second}"
    )
    reloaded = AppTest.from_file(str(APP), default_timeout=120)  # a new session on that URL
    reloaded.query_params["runs"] = f"{first},{second},gone"
    reloaded.run()
    reloaded.switch_page("views/simcse.py").run()
    assert not reloaded.exception and not errors(reloaded)
    assert picked(reloaded) == [first, second]
