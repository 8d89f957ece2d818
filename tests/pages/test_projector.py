"""Projector mode: one switch on every page (remembered across pages) hides the settings and the chrome,
enlarges the charts' text and lines (≥ 18 px), and shows the film beside one chosen curve at full width."""

from __future__ import annotations

from apphelpers import APP, errors, plotly_specs, run_on_disk
from streamlit.testing.v1 import AppTest

from engine import charts
from ui import projector


def _fonts(spec: dict) -> list[float]:
    """Every text size a Plotly figure sets: its font, title, legend, axis titles and tick labels."""
    layout = spec["layout"]
    sizes = [layout["font"]["size"], layout["title"]["font"]["size"], layout["legend"]["font"]["size"]]
    for axis in ("xaxis", "yaxis"):
        sizes += [layout[axis]["tickfont"]["size"], layout[axis]["title"]["font"]["size"]]
    return sizes


def test_the_switch_enlarges_the_charts_and_shows_the_film_beside_one_curve(fresh_registry) -> None:
    run = run_on_disk("lecture-run", snapshot=(40, 8))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/isotropy.py").run()
    at.multiselect(key="probe.shown").set_value([run]).run()
    assert not at.exception and not errors(at)
    normal = plotly_specs(at)
    assert len(normal) == 6  # four curves, the scatter and the projection
    assert at.slider(key="probe.smooth") is not None and at.get("download_button")

    at.toggle(key=projector.KEY).set_value(True).run()
    assert not at.exception and not errors(at)
    shown = plotly_specs(at)
    assert len(shown) == 2  # one curve beside the film
    assert all(size >= 18 for spec in shown for size in _fonts(spec)), [_fonts(spec) for spec in shown]
    curve = next(spec for spec in shown if spec["data"][0]["type"] == "scatter")
    assert all(trace["line"]["width"] >= 4 for trace in curve["data"])
    assert 400 <= curve["layout"]["height"] <= 460  # large, and fits a 1280×720 screen beside the film
    assert [
        css for css in at.get("html") if "stSidebar" in css.proto.body and "display: none" in css.proto.body
    ]
    assert not [s for s in at.get("slider") if s.key == "probe.smooth"]  # the chart settings are hidden
    assert not at.get("download_button")
    # it opens on the measure of the experiment's lesson (the probe's: IsoScore), not on the loss
    assert at.selectbox(key="probe.projcurve").value == "isoscore"
    assert curve["layout"]["title"]["text"].startswith("IsoScore")
    at.selectbox(key="probe.projcurve").set_value("silhouette").run()
    assert any(spec["layout"]["title"]["text"].startswith("Silhouette") for spec in plotly_specs(at))

    at.switch_page("views/compare.py").run()  # remembered in the session, on every page
    assert at.toggle(key=projector.KEY).value is True and [css for css in at.get("html")]
    at.button(key="projector.leave").click().run()
    assert at.toggle(key=projector.KEY).value is False and not at.get("html")
    at.switch_page("views/isotropy.py").run()
    assert len(plotly_specs(at)) == 6 and not at.exception


def test_the_live_view_keeps_the_projector_text_sizes() -> None:
    """The live view draws a panel's figure as it is (the renderer lays only its defaults under it): the
    projector's text sizes and line widths travel in the description."""
    import pandas as pd

    from engine.charts import description

    frame = pd.DataFrame({"step": [0, 1, 2], "loss": [1.0, 0.5, 0.2]})
    normal = description.panel(charts.metric_figure({"a": frame}, "loss"), "loss")["figure"]
    large = description.panel(charts.metric_figure({"a": frame}, "loss", style=charts.PROJECTOR), "loss")
    large = large["figure"]
    assert large["layout"]["font"]["size"] >= 18 and large["layout"]["title"]["font"]["size"] >= 18
    assert "size" not in normal["layout"].get("font", {})
    assert large["data"][0]["line"]["width"] >= 2 * normal["data"][0]["line"]["width"]
