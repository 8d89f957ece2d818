"""A link opens a page's settings: ``?preset=NAME`` and ``?KNOB=VALUE`` in, the sidebar's fields out; a bad
value is ignored with a note; "Copy link to these settings" gives the URL of what is set now."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from apphelpers import errors

from engine.lessons import presets


def opened(app, page: str, **params: str):
    for name, value in params.items():
        app.query_params[name] = value
    app.switch_page(page).run()
    assert not app.exception and not errors(app)
    return app


def link_of(app) -> str:
    (code,) = [c for c in app.sidebar.code]
    return code.value


def notes(app) -> tuple[str, str]:
    """The link's notes as the reader sees them (the Markdown escapes of their values undone)."""
    info = " ".join(i.value for i in app.sidebar.info)
    warning = " ".join(w.value for w in app.sidebar.warning)
    return unescaped(info), unescaped(warning)


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def test_a_preset_and_knobs_from_the_url_fill_the_simcse_sidebar(app) -> None:
    opened(app, "views/simcse.py", preset="SimCSE Figure 2 · lecture", same_mask="true", steps="40")
    assert app.toggle(key="simcse.same_mask").value is True
    assert app.number_input(key="simcse.steps").value == 40  # the knob laid over the preset's 10
    lecture = presets.presets()["SimCSE Figure 2 · lecture"]
    assert app.number_input(key="simcse.batch_size").value == lecture.base["batch_size"]  # the preset's
    assert app.number_input(key="simcse.eval_every").value == 5
    info, warning = notes(app)
    assert "SimCSE Figure 2 · lecture" in info and "same_mask = true" in info and not warning
    from ui import runs

    assert runs.registry().jobs() == []  # Start stays the reader's click
    app.run()  # a rerun keeps what the reader changes since: the link is applied once
    app.number_input(key="simcse.steps").set_value(30).run()
    assert app.number_input(key="simcse.steps").value == 30


def test_bad_values_are_ignored_with_a_note(app) -> None:
    bad = {"steps": "-3", "dropout": "lots", "nonsense": "1", "preset": "no such"}
    opened(app, "views/simcse.py", **bad, batch_size="32")
    assert app.number_input(key="simcse.steps").value == 100  # the default, not -3
    assert app.slider(key="simcse.dropout").value == 0.1
    assert app.number_input(key="simcse.batch_size").value == 32  # the good one is kept
    info, warning = notes(app)
    assert "batch_size = 32" in info
    for bad in ("steps", "dropout", "'nonsense'", "'no such'"):
        assert bad in warning, (bad, warning)


def test_every_experiment_page_reads_its_knobs(app) -> None:
    opened(app, "views/isotropy.py", steps="250", objective="triplet", label_col="sentiment")
    assert app.number_input(key="probe.steps").value == 250
    assert app.selectbox(key="probe.objective").value == "triplet"
    assert app.radio(key="probe.label_col").value == "sentiment"
    app.query_params.clear()
    opened(app, "views/jepa.py", ema="0", predictor="false", regulariser="sigreg")
    assert app.number_input(key="jepa.ema").value == 0.0
    assert app.toggle(key="jepa.predictor").value is False
    assert app.radio(key="jepa.regulariser").value == "sigreg"


def test_the_copied_link_opens_what_is_set_now(app) -> None:
    app.switch_page("views/simcse.py").run()
    assert link_of(app) == "/simcse?probe=demo"  # what is off its knob's default (the page's probe is on)
    app.number_input(key="simcse.steps").set_value(40)
    app.toggle(key="simcse.same_mask").set_value(True)
    app.radio(key="simcse.augment").set_value("none").run()
    url = link_of(app)
    assert urlsplit(url).path == "/simcse"
    params = dict(parse_qsl(urlsplit(url).query))
    assert params == {"same_mask": "true", "steps": "40", "probe": "demo"}
    from apphelpers import APP
    from streamlit.testing.v1 import AppTest

    fresh = AppTest.from_file(str(APP), default_timeout=120)
    fresh.run()
    opened(fresh, "views/simcse.py", **params)  # a new tab on that link shows the same settings
    assert fresh.toggle(key="simcse.same_mask").value is True
    assert fresh.number_input(key="simcse.steps").value == 40
    assert link_of(fresh) == url


def codes(app) -> list[str]:
    return [c.value for c in app.sidebar.code]


def test_the_training_data_travels_and_an_impossible_value_is_refused_with_an_escaped_note(app) -> None:
    opened(app, "views/jepa.py", train="demo", device="../../etc", steps="![x](http://127.0.0.1:9/x.png)")
    assert app.selectbox(key="jepa.train0").value == "demo"
    assert app.selectbox(key="jepa.device").value == "auto"
    info, warning = notes(app)
    assert "train = demo" in info and "device" not in info and "steps" not in info  # never reported as set
    assert "device: the page offers auto, cpu, cuda, mps, got '../../etc'" in warning and "steps" in warning
    raw = " ".join(w.value for w in app.sidebar.warning)
    assert "![x](" not in raw and "\\!\\[x\\]" in raw  # drawn as text, never as an image
    assert "train=demo" in codes(app)[0]  # the copied link carries the training data


def test_the_data_folder_travels_relative_to_the_data_root(app, tmp_path, monkeypatch) -> None:
    (tmp_path / "stsb").mkdir()
    monkeypatch.setenv("EMBEDLAB_DATA_DIR", str(tmp_path))
    opened(app, "views/simcse.py")
    assert "data_dir" not in codes(app)[0]  # the default folder: nothing to carry
    app.text_input(key="simcse.data_dir").set_value(str(tmp_path / "stsb")).run()
    assert "data_dir=stsb" in codes(app)[0] and str(tmp_path) not in codes(app)[0]
    app.text_input(key="simcse.data_dir").set_value("/").run()
    assert "data_dir" not in codes(app)[0] and "data_dir" in " ".join(c.value for c in app.sidebar.caption)
    app.query_params.clear()
    from apphelpers import APP
    from streamlit.testing.v1 import AppTest

    fresh = AppTest.from_file(str(APP), default_timeout=120)
    fresh.run()
    opened(fresh, "views/simcse.py", data_dir="stsb")
    assert fresh.text_input(key="simcse.data_dir").value == str(tmp_path / "stsb")


def test_a_second_link_reopens_the_runs_shown_and_unknown_runs_are_named(fresh_registry) -> None:
    from apphelpers import APP, run_on_disk
    from streamlit.testing.v1 import AppTest

    run = run_on_disk("lecture-run", "jepa", config={"kind": "jepa"})
    app = AppTest.from_file(str(APP), default_timeout=120)
    app.query_params["runs"] = f"{run},no-such-run"
    app.switch_page("views/jepa.py").run()
    assert not app.exception
    assert app.multiselect(key="jepa.shown").value == [run]
    warned = unescaped(" ".join(w.value for w in app.warning))
    assert "run 'no-such-run' is not a run of this server" in warned
    assert [code for code in codes(app) if code.endswith(f"?runs={run}")]
