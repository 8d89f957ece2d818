"""Overview page: renders, explains, and the demo button queues a run and opens the Isotropy page."""

from __future__ import annotations

from apphelpers import errors


def test_overview_renders_with_picture_and_demo_button(app) -> None:
    assert "embedlab" in app.title[0].value
    assert app.get("graphvizchart") or app.get("graphviz_chart")
    demo = app.button(key="overview.demo")
    assert demo.label == "Start the demo" and demo.icon == ":material/play_arrow:"  # no emoji font needed
    assert not errors(app)


def test_demo_button_queues_the_demo_and_switches_page(app) -> None:
    from ui import runs

    app.button(key="overview.demo").click().run()
    assert not app.exception
    jobs = runs.registry().jobs()
    assert len(jobs) == 1 and jobs[0].kind == "probe" and jobs[0].name == "Demo: clusters form"
    assert app.title[0].value == "Isotropy vs clusters"
    jobs[0].stop()
