"""Projector mode opens on the lesson's measures, declared on the experiment's page section (not in ui/):
SimCSE the alignment–uniformity plane and STS side by side, beside the film where the runs have snapshots;
JEPA RankMe. The runs' end markers on the plane differ in shape and colour."""

from __future__ import annotations

from apphelpers import APP, errors, plotly_specs, run_on_disk
from streamlit.testing.v1 import AppTest

from engine.core.measures import RANKME, STS_SPEARMAN
from engine.jepa.entry import SECTION as JEPA_SECTION
from engine.simcse.entry import SECTION as SIMCSE_SECTION
from ui import live_state, projector


def rows(shift: float) -> list[dict]:
    return [
        {
            "step": s,
            "loss": 1.0 / (s + 1),
            "alignment": 0.15 + shift + s / 100,
            "uniformity": -1.2 - s / 10,
            STS_SPEARMAN: 0.6 + shift + s / 50,
            RANKME: 240.0 - s,
            "seconds": float(s),
        }
        for s in range(4)
    ]


def projected(page: str, kind: str, runs: list[str]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page(page).run()
    at.multiselect(key=f"{kind}.shown").set_value(runs).run()
    at.toggle(key=projector.KEY).set_value(True).run()
    assert not at.exception and not errors(at)
    return at


def titles(at: AppTest) -> list[str]:
    return [spec["layout"]["title"]["text"] for spec in plotly_specs(at) if spec["layout"].get("title")]


def test_the_sections_declare_the_lessons_measures() -> None:
    assert SIMCSE_SECTION.projector == ("align_uniform_path", STS_SPEARMAN)
    assert JEPA_SECTION.projector == (RANKME,)


def test_simcse_opens_on_the_plane_and_sts_with_the_film_beside_them(fresh_registry) -> None:
    config = {"kind": "simcse", "snapshot_every": 1}
    a = run_on_disk("dropout", "simcse", rows=rows(0.0), config=config, snapshot=(40, 8))
    b = run_on_disk("same-mask", "simcse", rows=rows(0.05), config=config, snapshot=(40, 8))
    at = projected("views/simcse.py", "simcse", [a, b])
    assert at.selectbox(key="simcse.projcurve").value == live_state.LESSON
    shown = titles(at)
    assert any("path" in title for title in shown), shown  # the plane with each run's path
    assert any(title.startswith("STS") for title in shown), shown
    assert any("PCA" in title or "UMAP" in title for title in shown), "the film beside them"
    panels = [spec for spec in plotly_specs(at) if "PCA" not in spec["layout"]["title"]["text"]]
    assert len(panels) == 2  # the plane and STS, side by side (each half of its column)
    plane = next(spec for spec in plotly_specs(at) if "path" in spec["layout"]["title"]["text"])
    ends = [  # each run's end marker: a trace of its own, out of the legend (no start circle)
        (t["marker"]["symbol"], t["marker"]["color"])
        for t in plane["data"]
        if t.get("showlegend") is False and t["marker"]["symbol"] != "circle-open"
    ]
    assert len(ends) == 2 and len(set(ends)) == 2 and ends[0][0] != ends[1][0]  # apart by shape and colour
    at.selectbox(key="simcse.projcurve").set_value("loss").run()  # one curve alone, as before
    alone = titles(at)
    assert [t for t in alone if t.startswith("Training loss")] and not [t for t in alone if "path" in t]


def test_jepa_opens_on_rankme(fresh_registry) -> None:
    run = run_on_disk("collapse", "jepa", rows=rows(0.0), config={"kind": "jepa"})
    at = projected("views/jepa.py", "jepa", [run])
    assert at.selectbox(key="jepa.projcurve").value == RANKME
    assert any(title.startswith("RankMe") for title in titles(at)), titles(at)
