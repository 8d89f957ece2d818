"""Each experiment page orders its charts by its lesson's measures: the probe's IsoScore and silhouette come
first, its loss and accuracy after them (at 1366×768 the first screen holds what the lesson is about)."""

from __future__ import annotations

from apphelpers import APP, errors, plotly_specs, run_on_disk
from streamlit.testing.v1 import AppTest

NAMES = ("IsoScore", "Silhouette", "Accuracy", "Training loss")


def test_the_probe_page_draws_isoscore_and_silhouette_first(fresh_registry) -> None:
    run = run_on_disk("ordered")
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("views/isotropy.py").run()
    at.multiselect(key="probe.shown").set_value([run]).run()
    assert not at.exception and not errors(at)
    titles = [str((spec["layout"].get("title") or {}).get("text", "")) for spec in plotly_specs(at)]
    order = {name: next((i for i, t in enumerate(titles) if t.startswith(name)), None) for name in NAMES}
    assert None not in order.values(), titles
    assert order["IsoScore"] < order["Silhouette"] < order["Accuracy"] < order["Training loss"], titles
