"""The live view (ui/live_view.py, ui/live.py): a running run's page hands the live component a chart
description (engine/charts/description.py) of the curves the page shows, with the runs' progress; the live
fragment builds it anew as the run grows; the component's code is the renderer's files and Plotly.js is the
installed package's file, served from the static folder."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from apphelpers import errors, wait_idle
from waiting import wait_for

from ui import live_view


def descriptions(at) -> list[dict]:
    """The chart descriptions of the page's live components (custom components v2)."""
    found = []
    for element in at.get("bidi_component"):
        proto = element.proto
        data = json.loads(proto.json) if proto.json else json.loads(proto.mixed.json)
        found.append(data)
    return found


def curves_of(at) -> dict:
    """The data of the page's live curves component (the one whose key ends in ``.live``)."""
    return next(data for data in descriptions(at) if data["description"]["panels"])


def last_step(panel: dict) -> float:
    x = panel["figure"]["data"][-1]["x"]
    return float(np.frombuffer(base64.b64decode(x["bdata"]), dtype="<f8")[-1])


def test_plotly_js_is_the_installed_packages_file_served_from_the_static_folder(tmp_path: Path) -> None:
    url = live_view.serve_plotly(tmp_path)
    served = tmp_path / url.removeprefix("app/static/")
    assert (
        url.startswith("app/static/plotly-") and served.read_bytes() == live_view.plotly_source().read_bytes()
    )
    assert live_view.serve_plotly(tmp_path) == url and sorted(p.name for p in tmp_path.iterdir()) == [
        served.name
    ]


def test_a_running_runs_page_draws_its_curves_from_a_description_that_grows(app) -> None:
    from ui import live_state, runs

    app.switch_page("views/isotropy.py").run()
    app.number_input(key="probe.steps").set_value(100_000)
    app.number_input(key="probe.limit").set_value(120)
    app.number_input(key="probe.snap").set_value(0)
    app.run()
    app.button(key="probe.start").click().run()
    job = runs.registry().jobs()[-1]
    try:
        wait_for(lambda: (job.last_step or 0) >= 2, 120, "the run's first steps")
        app.run()
        assert not app.exception and not errors(app)
        data = curves_of(app)
        assert data["plotly"].startswith("app/static/plotly-")
        drawn = data["description"]
        keys = [panel["key"] for panel in drawn["panels"]]
        assert "loss" in keys and drawn["progress"][0]["text"].startswith(runs.run_label(job))
        loss = next(panel for panel in drawn["panels"] if panel["key"] == "loss")
        assert loss["figure"]["layout"]["title"]["text"].startswith("Training loss")
        # what the live fragment draws next: the same panels, the curve grown, the signature unchanged
        choices = live_state.Choices(
            ids=(job.id,),
            metrics=tuple(keys),
            measures=tuple(keys),
            options={"smoothing": 0.0, "log_y": False, "x": "step"},
            pair=None,
            share=False,
            extras=None,
        )
        first = live_state.now(runs.registry(), choices)
        wait_for(lambda: (job.last_step or 0) > last_step(loss) + 2, 60, "the run to go on")
        later = live_state.now(runs.registry(), choices)
        panels = live_view.description.plain(live_state.description_of(later[0], choices, later[1]))["panels"]
        assert last_step(next(p for p in panels if p["key"] == "loss")) > last_step(loss) + 2
        assert live_state.signature(first[0], choices, first[1]) == live_state.signature(
            later[0], choices, later[1]
        )
        job.stop()
        wait_idle(30)
        app.run()  # a stopped run is drawn with Streamlit's Plotly charts: no live component
        assert not app.exception and not [d for d in descriptions(app) if d["description"]["panels"]]
    finally:
        job.stop()
        wait_idle(30)
