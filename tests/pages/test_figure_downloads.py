"""The figure downloads of an experiment page name the chart they export, and the exported file keeps the
chart's title and the data it was measured on under it (issue 56): HTML always, SVG and PDF where kaleido
and a Chromium are here. A chart name is drawn as text on its button (issue 55: no Markdown from it)."""

from __future__ import annotations

import pytest
from apphelpers import APP, button_bytes, errors, run_on_disk
from streamlit.testing.v1 import AppTest

from engine import charts
from engine.core.errors import ConfigError
from engine.runlog import export
from ui.text import plain

CHART = charts.relation_title("isoscore", "silhouette")  # the probe page's pair
#: the probe measures on its data set: the data the page names under the chart's title
SUBTITLE = "on " + str(charts.measured_of("probe", "silhouette", {"kind": "probe", "data": "demo"}))


def page_with_a_run(fresh_registry) -> AppTest:
    run = run_on_disk("exported")
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/isotropy.py").run()
    at.multiselect(key="probe.shown").set_value([run]).run()
    assert not at.exception and not errors(at)
    return at


def test_the_figure_buttons_name_the_chart_and_the_html_keeps_its_subtitle(fresh_registry, downloads) -> None:
    at = page_with_a_run(fresh_registry)
    buttons = {button.label: button for button in at.get("download_button")}
    named = [label for label in buttons if label.startswith(plain(CHART))]
    wanted = [f"{plain(CHART)} ({fmt})" for fmt in ("HTML", "SVG", "PDF")]
    assert named == (wanted if export.image_export_ready() else wanted[:1]), list(buttons)
    html = buttons[wanted[0]]
    page = button_bytes(html, downloads).decode()
    assert CHART in page and SUBTITLE in page  # the title, and the data it was measured on under it


def test_the_exported_svg_keeps_the_title_and_the_subtitle() -> None:
    if not export.image_export_ready():
        pytest.skip("kaleido not installed (it is a base dependency: pip install -e .)")
    frame = {
        "run": __import__("pandas").DataFrame(
            {"step": [0, 1, 2], "isoscore": [0.5, 0.3, 0.1], "silhouette": [0.0, 0.2, 0.4]}
        )
    }
    figure = charts.relation_figure(frame, "isoscore", "silhouette", measured_on="STS-B dev (1,500 pairs)")
    try:
        svg = export.figure_image(figure, "svg").decode()
    except ConfigError as err:  # kaleido found no Chrome or Chromium here
        pytest.skip(str(err))
    assert "IsoScore vs Silhouette" in svg and "on STS-B dev (1,500 pairs)" in svg
