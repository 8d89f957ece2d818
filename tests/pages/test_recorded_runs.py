"""Recorded runs played for a class (issue 58, item 1; ui/recorded.py): the SimCSE page's Figure 2 preset
offers "Play the recorded runs (3 seeds, full length)"; it draws the shipped runs as 4 groups, each a mean
line with a ± sd band, on STS, uniformity and the alignment–uniformity plane, with a step counter, a caption
that says recorded, when, with which command, seeds and start, and writes nothing to the cache; the JEPA
page's collapse preset is served by the same control."""

from __future__ import annotations

import json
from pathlib import Path

from apphelpers import errors

from engine import charts
from engine.charts.legend import LEGEND_ROW
from engine.groups.recorded import SHIPPED
from ui import projector

FIGURE2 = SHIPPED / "cache" / "lessons-check" / "full" / "SimCSE-Figure-2"
GROUPS = ("unsup-simcse", "no-dropout", "delete-one-word", "fixed-0.1")
#: a projector's chart at most this high (px), legend included: under the title, the headline and the step
#: counter (about 200 px) it ends within a 1280×720 screen (tests/e2e/test_recorded_projector.py measures it)
PLAYED_FOLD = 500


def recorded_component(at) -> dict:
    for element in at.get("bidi_component"):
        proto = element.proto
        data = json.loads(proto.json) if proto.json else json.loads(proto.mixed.json)
        if "Recorded runs" in json.dumps(data.get("description", {}).get("progress"), ensure_ascii=False):
            return data
    raise AssertionError("no recorded runs drawn")


def files_under(folder: Path) -> dict[str, int]:
    return {str(path): path.stat().st_mtime_ns for path in folder.rglob("*")} if folder.exists() else {}


def test_the_figure2_preset_plays_its_recorded_runs_as_four_banded_groups(app, tmp_path) -> None:
    cache = tmp_path / "cache"
    app.switch_page("views/simcse.py").run()
    before = files_under(cache)
    shipped = files_under(FIGURE2)
    button = next(b for b in app.sidebar.button if b.label == "Play the recorded runs (3 seeds, full length)")
    button.click().run()
    assert not app.exception and not errors(app)
    data = recorded_component(app)
    found = data["description"]
    panels = {panel["key"]: panel["figure"] for panel in found["panels"]}
    assert {"sts_spearman", "uniformity", "plane"} <= set(panels)
    for metric in ("sts_spearman", "uniformity"):
        names = [trace["name"] for trace in panels[metric]["data"]]
        for group in GROUPS:  # each group: its band (filled) and its mean over 3 seeds
            assert f"{group} (mean of 3, ± std)" in names and f"{group} · ± std" in names
        assert sum(trace.get("fill") == "tonexty" for trace in panels[metric]["data"]) == 4
        layout = panels[metric]["layout"]  # a legend row each under the plot, not over its x axis
        assert layout["height"] == 300 + 3 * LEGEND_ROW and layout["margin"]["b"] >= 3 * LEGEND_ROW
    assert len({trace["legendgroup"] for trace in panels["plane"]["data"] if trace.get("legendgroup")}) >= 4
    (counter,) = found["progress"]
    assert counter["text"].startswith("Recorded runs · step 0/100")  # the play starts at step 0
    assert data["feed"] is not None  # played on by the live feed
    caption = " ".join(info.value for info in app.info)
    for words in ("Recorded runs, not trained now", "recorded 2026-12-02", "3 seeds", "from minilm-cls"):
        assert words in caption, caption
    assert 'python -m engine lessons check --seeds 3 --preset "SimCSE Figure 2"' in caption
    assert files_under(FIGURE2) == shipped
    assert files_under(cache) == before  # nothing trained, nothing written to the cache


def test_the_jepa_collapse_preset_is_served_by_the_same_control(app) -> None:
    app.switch_page("views/jepa.py").run()
    button = next(b for b in app.sidebar.button if b.label.startswith("Play the recorded runs"))
    assert button.label == "Play the recorded runs (1 seed, full length)"
    button.click().run()
    assert not app.exception and not errors(app)
    found = recorded_component(app)["description"]
    assert len(found["panels"]) >= 3
    caption = " ".join(info.value for info in app.info)
    assert "Does JEPA collapse?" in caption and "1 seed" in caption


def test_in_projector_mode_the_recorded_charts_take_its_style_the_plane_and_sts_first(app) -> None:
    """Issue 58: played in projector mode, the recorded charts are drawn in the projector's chart style (the
    live charts' one, :func:`ui.projector.style`), the lesson's plane and STS side by side first, every
    group's end marker on the plane its own (symbol and colour); the caption's headline above the charts,
    the whole caption (its command) under them."""
    app.switch_page("views/simcse.py").run()
    button = next(b for b in app.sidebar.button if b.label == "Play the recorded runs (3 seeds, full length)")
    button.click().run()
    app.session_state[projector.KEY] = True
    app.run()
    assert not app.exception and not errors(app)
    panels = recorded_component(app)["description"]["panels"]
    assert [panel["key"] for panel in panels][:2] == ["plane", "sts_spearman"]
    assert not any(panel["wide"] for panel in panels)  # two a row: the plane beside STS
    for panel in panels:
        layout = panel["figure"]["layout"]
        for axis in ("xaxis", "yaxis"):
            assert layout[axis]["tickfont"]["size"] == charts.PROJECTOR.font, (panel["key"], axis)
        assert layout["height"] <= PLAYED_FOLD, panel["key"]
    names = [t["name"] for t in panels[1]["figure"]["data"] if t.get("showlegend") is not False]
    assert names == list(GROUPS)  # the group alone: "mean of 3, ± 1 sd" is in the headline
    ends = [
        (t["marker"]["symbol"], t["marker"]["color"])
        for t in panels[0]["figure"]["data"]
        if t.get("showlegend") is False and t["marker"]["symbol"] != "circle-open"
    ]
    assert len(ends) == 4 and len({s for s, _ in ends}) == 4 and len({c for _, c in ends}) == 4, ends
    infos = [info.value for info in app.info]
    assert infos[0].startswith("Recorded 2026-12-02, not trained now"), infos
    assert "mean ± 1 sd of 3 seeds" in infos[0]
    assert any('--preset "SimCSE Figure 2"' in info for info in infos[1:])
