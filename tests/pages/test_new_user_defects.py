"""Defects a new user hit, each fixed: what the pages show after a failed start, which evaluation set a chart
used, the same-mask switch, saving the trained encoder, the Compare page's run list, errors in the pages'
words, the get-the-data guide, IsoScore with fewer items than dimensions, numeric fields, and the demo."""

from __future__ import annotations

from apphelpers import (
    APP,
    button_bytes,
    charts_drawn,
    elements_in_order,
    errors,
    plotly_specs,
    run_on_disk,
    start_off,
    start_without_data_folder,
    values,
    wait_idle,
)
from streamlit.testing.v1 import AppTest
from waiting import wait_for

from engine.core import paths


def _fresh() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    return at


# ------------------------------------------------------------------------------------- a failed start


def test_a_failed_start_shows_only_its_error_in_the_pages_words(app) -> None:
    from ui import runs

    start_without_data_folder(app, 120)
    assert runs.registry().jobs()[-1].state == "failed"
    app.run()
    assert not app.exception
    (line,) = errors(app)
    assert "“Data folder” field" in line and "Get the data" in line and "Start again" in line
    assert "--data-dir" not in line and "EMBEDLAB_" not in line and "HF_HUB_OFFLINE" not in line
    assert line.count("rt-polarity:") == 1
    assert not [i for i in app.info if "No metrics yet" in i.value]
    assert not charts_drawn(app) and not app.get("download_button")


def test_errors_speak_of_fields_and_never_repeat_their_prefix() -> None:
    from ui.text import message, ui_words

    cli = (
        "rt-polarity: not found (no --data-dir given and EMBEDLAB_DATA_DIR unset) (expected rt-polarity/"
        "rt-polarity.pos) and the Hugging Face hub is offline (HF_HUB_OFFLINE=1); pass --data-dir DIR, a "
        "folder holding rt-polarity/rt-polarity.pos"
    )
    words = ui_words(cli)
    assert "set the “Data folder” field to a folder holding rt-polarity/rt-polarity.pos" in words
    assert "(the Data folder field is empty)" in words
    assert not any(flag in words for flag in ("--data-dir", "EMBEDLAB", "HF_HUB", "DIR,"))
    assert (
        ui_words("sample_size 700 is larger than the data")
        == "“Geometry sample size” 700 is larger than the data"
    )
    assert ui_words("limit must be an integer in [2, 10], got 1").startswith("“Limit” must")
    assert message("rt-polarity: ", "rt-polarity: rt-polarity: gone") == "rt-polarity: gone"


# ----------------------------------------------------------------------------------- evaluation set


def test_simcse_charts_name_the_demo_pairs_when_there_is_no_data_folder(fresh_registry) -> None:
    rows = [
        {
            "step": s,
            "loss": 1.0 - s / 10 if s else None,
            "alignment": 0.2,
            "uniformity": -2.0 - s / 10,
            "sts_spearman": 0.7 + s / 100,
            "isoscore": 0.3,
            "seconds": float(s),
        }
        for s in range(4)
    ]
    run = run_on_disk("simcse-nofolder", "simcse", rows=rows)
    at = _fresh()
    at.switch_page("views/simcse.py").run()
    at.multiselect(key="simcse.shown").set_value([run]).run()
    assert not at.exception and not errors(at)
    titles = {spec["layout"]["title"]["text"] for spec in plotly_specs(at)}
    for title in (
        "STS Spearman ρ",
        "Alignment (lower is better)",
        "Uniformity (lower is better)",
        "Alignment vs uniformity",
    ):
        assert any(t.startswith(title) and "on built-in demo pairs" in t for t in titles), (title, titles)
    assert not any("STS-B" in t for t in titles)
    assert any("built-in demo pairs" in c.value for c in at.sidebar.caption)  # where Start would evaluate
    figure2 = at.button(key="simcse.preset.SimCSE Figure 2")
    assert "STS-B" not in figure2.help.replace("not STS-B", "") and "demo pairs" in figure2.help


# ----------------------------------------------------------------------------------------- same mask


def test_same_mask_turns_the_dropout_slider_off_and_says_why(app) -> None:
    from ui import runs

    app.switch_page("views/simcse.py").run()
    assert app.slider(key="simcse.dropout").proto.disabled is False
    app.slider(key="simcse.dropout").set_value(0.3).run()
    app.toggle(key="simcse.same_mask").set_value(True).run()
    assert app.slider(key="simcse.dropout").proto.disabled is True
    captions = " ".join(c.value for c in app.sidebar.caption)
    assert "slider is off" in captions and "https://github.com/princeton-nlp/SimCSE/issues/36" in captions
    assert "SimCSE#36" not in captions
    app.number_input(key="simcse.steps").set_value(100_000).run()
    app.button(key="simcse.start").click().run()
    assert not errors(app)
    job = runs.registry().jobs()[-1]
    assert job.config.same_mask is True and job.config.dropout == 0.1
    job.stop()
    wait_idle(120)


# ------------------------------------------------------------------------------------- save encoder


def test_the_trained_encoder_can_be_saved_and_a_taken_name_is_refused_before_start(app) -> None:
    from ui import runs

    (paths.encoders_dir() / "taken").mkdir(parents=True)
    app.switch_page("views/simcse.py").run()
    app.text_input(key="simcse.save_encoder").set_value("taken").run()
    line = start_off(app, "simcse")  # Start is off, the reason beside it
    assert "already exists" in line and "“Replace an existing one”" in line and "\n" not in line
    assert runs.registry().jobs() == []
    app.text_input(key="simcse.save_encoder").set_value("my encoder")
    app.number_input(key="simcse.steps").set_value(100_000).run()
    app.button(key="simcse.start").click().run()
    assert not errors(app)
    job = runs.registry().jobs()[-1]
    assert (job.config.save_encoder, job.config.replace_encoder) == ("my encoder", False)
    job.stop()
    wait_idle(120)


# -------------------------------------------------------------------------------------------- compare


def test_compare_says_no_steps_yet_offers_the_figure_as_html_and_deletes_a_run(
    fresh_registry, downloads
) -> None:
    kept = run_on_disk("kept-run")
    gone = run_on_disk("failed-run", rows=[], state="failed", error="demo: broken on purpose")
    at = _fresh()
    at.switch_page("views/compare.py").run()
    assert not at.exception and len(errors(at)) == 1  # the newest run, failed: only its error is shown
    table = at.dataframe[0].value
    assert table.set_index("run").loc["failed-run", "last step"] == "no steps yet"
    assert "None" not in table["last step"].astype(str).tolist()
    at.multiselect(key="all.shown").set_value([kept]).run()
    html = {b.label: b for b in at.get("download_button")}["figure (HTML)"]
    page = button_bytes(html, downloads).decode()
    assert (
        page.lstrip().lower().startswith("<!doctype html>")
        and "Training loss" in page
        and "plotly" in page.lower()
    )

    assert at.button(key="compare.delete").proto.disabled is True  # nothing picked, not confirmed
    at.multiselect(key="compare.delete.pick").set_value([gone]).run()
    assert at.button(key="compare.delete").proto.disabled is True  # not confirmed yet
    at.checkbox(key="compare.delete.confirm").check().run()
    at.button(key="compare.delete").click().run()
    assert not at.exception and not errors(at)
    assert not (paths.runs_dir() / gone).exists() and (paths.runs_dir() / kept).exists()
    assert all("failed-run" not in str(run) for run in at.dataframe[0].value["run"])


def test_a_running_run_is_never_offered_for_deletion_and_stop_shows_the_run_with_rows(fresh_registry) -> None:
    from ui import runs

    at = _fresh()
    reg = runs.registry()
    going = reg.submit("probe", {"data": "demo", "limit": 60, "steps": 100_000}, name="going")
    queued = reg.submit("probe", {"data": "demo", "limit": 60, "steps": 5}, name="queued")
    wait_for(lambda: going.rows.last_step is not None, 120, "the first run's first step")
    at.switch_page("views/compare.py").run()
    assert "compare.delete.pick" not in [m.key for m in at.multiselect]  # nothing may be deleted
    assert any("No finished, stopped or failed run to delete" in c.value for c in at.caption)
    assert not runs.deletable(going) and not runs.deletable(queued)
    for job in (going, queued):
        job.stop()
    wait_idle(60)
    assert queued.state == "stopped" and queued.rows.last_step is None  # cancelled while queued
    fresh = _fresh()
    fresh.switch_page("views/compare.py").run()
    assert fresh.multiselect(key="all.shown").value == [
        going.id
    ]  # the newest run with rows, not the cancelled one
    assert not [i for i in fresh.info if "No metrics yet" in i.value]


# -------------------------------------------------------------------------------------------- the data


def test_the_data_page_tells_how_to_get_each_set_and_says_it_is_offline(app) -> None:
    from engine.data.guide import GUIDES

    app.switch_page("views/data.py").run()
    assert not app.exception and not errors(app)
    labels = [e.label for e in app.get("expander")]
    assert [
        any(GUIDES[name].title in label for label in labels)
        for name in ("rt-polarity", "snli", "stsb", "wiki1m")
    ] == [True] * 4
    assert any("works offline" in i.value for i in app.info)
    buttons = [b for b in app.button if str(b.key).startswith("guide.download.")]
    assert len(buttons) == 4 and all(b.proto.disabled for b in buttons)
    layouts = " ".join(c.value for c in app.code)
    assert (
        "rt-polarity.pos" in layouts
        and "validation.tsv" in layouts
        and "sts-dev.csv" in layouts
        and "wiki/" in layouts
    )
    text = " ".join(str(m.value) for m in app.markdown)
    assert "cs.cornell.edu" in text and "nlp.stanford.edu" in text and "stswiki" in text


def test_one_click_downloads_a_set_when_the_hub_is_reachable(app, monkeypatch, tmp_path) -> None:
    from engine.data import download, guide

    fetched: list[tuple[str, str]] = []
    monkeypatch.setattr(guide, "offline", lambda: False)
    monkeypatch.setattr(download, "hub_reachable", lambda repo, timeout=None: True)
    monkeypatch.setattr(
        download, "fetch", lambda repo, name, what: fetched.append((repo, name)) or tmp_path / name
    )
    app.switch_page("views/data.py").run()
    assert not any("works offline" in i.value for i in app.info)
    app.button(key="guide.download.stsb").click().run()
    assert not app.exception and not errors(app)
    assert fetched == [(guide.GUIDES["stsb"].hub_repo, name) for name in guide.GUIDES["stsb"].hub_files]
    assert any("stsb is downloaded" in s.value for s in app.success)
    monkeypatch.setattr(download, "hub_reachable", lambda repo, timeout=None: False)
    app.button(key="guide.download.snli").click().run()
    (line,) = errors(app)
    assert line.startswith("snli: the Hugging Face hub cannot be reached") and line.count("snli:") == 1


# --------------------------------------------------------------------------------------- IsoScore cap


def test_isoscore_with_fewer_items_than_dimensions_is_said_and_isoscore_star_offered(fresh_registry) -> None:
    run = run_on_disk("few-items", snapshot=(6, 16))  # 6 items, 16 dimensions
    at = _fresh()
    at.switch_page("views/isotropy.py").run()
    assert not any("capped" in c.value for c in at.sidebar.caption)  # 600 demo sentences > 384 dimensions
    at.number_input(key="probe.limit").set_value(120).run()
    note = next(c.value for c in at.sidebar.caption if "capped" in c.value)
    assert "120 items in 384 dimensions" in note and "0.31" in note and "IsoScore*" in note

    at.switch_page("views/compare.py").run()
    at.multiselect(key="all.shown").set_value([run]).run()
    warning = next(w.value for w in at.warning if "capped" in w.value)
    assert "6 items in 16 dimensions" in warning and "0.27" in warning
    at.button(key=f"compare.starbtn.{run}").click().run()
    assert not at.exception and not errors(at)
    star = [spec for spec in plotly_specs(at) if spec["layout"]["title"]["text"].startswith("IsoScore*")]
    assert star and len(values(star[0]["data"][0]["y"])) == 4
    assert all(0.0 <= v <= 1.0 for v in values(star[0]["data"][0]["y"]))


# ------------------------------------------------------------------------------------- numeric fields


def test_numeric_fields_state_their_range_and_show_invalid_values(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    assert "Range: 1 to 1,000,000." in app.number_input(key="probe.steps").help
    assert "Range: 0 (excluded) to 10." in app.number_input(key="probe.lr").help
    app.number_input(key="probe.steps").set_value(0).run()
    shown = [e.value for e in app.sidebar.error]
    assert any("“Steps (Adam updates)” must be from 1 to 1,000,000: 0 is outside" in e for e in shown), shown
    assert "“Steps (Adam updates)” must be from 1" in start_off(app, "probe")  # Start off, the reason beside
    assert runs.registry().jobs() == []

    app.number_input(key="probe.steps").set_value(5)
    app.number_input(key="probe.limit").set_value(6).run()
    line = start_off(app, "probe")
    assert "6 classes of the demo topics" in line and "at least 7" in line and "silhouette" in line
    assert runs.registry().jobs() == []
    app.number_input(key="probe.limit").set_value(60).run()  # fixed: Start is on again, no reason shown
    assert not app.button(key="probe.start").proto.disabled
    assert not any(c.value.startswith("Start is off") for c in app.sidebar.caption)


def test_a_diverging_loss_is_warned_about_in_the_run_panel(fresh_registry) -> None:
    rows = [
        {
            "step": s,
            "loss": [1.8, 2.5, 40.0, None][s],
            "accuracy": 0.5,
            "isoscore": 0.3,
            "silhouette": 0.1,
            "seconds": float(s),
        }
        for s in range(4)
    ]
    run = run_on_disk("lr-ten", rows=rows, config={"lr": 10.0})
    at = _fresh()
    at.switch_page("views/isotropy.py").run()
    at.multiselect(key="probe.shown").set_value([run]).run()
    warning = next(w.value for w in at.warning if "diverges" in w.value)
    assert "no longer a number" in warning and "step 3" in warning and "(10)" in warning
    assert "“Learning rate”" in warning


# --------------------------------------------------------------------------------------------- the demo


def test_the_demo_is_at_the_top_and_the_isotropy_sidebar_shows_its_settings(app) -> None:
    from engine.lessons.presets import presets
    from ui import runs

    order = elements_in_order(app)
    demo = next(i for i, e in enumerate(order) if getattr(e, "key", None) == "overview.demo")
    headings = [
        i
        for i, e in enumerate(order)
        if type(e).__name__ in ("Subheader", "Header", "Markdown", "GraphvizChart")
    ]
    assert headings and demo < min(headings)  # above the explanations: no scrolling for the one click
    app.button(key="overview.demo").click().run()
    assert not app.exception and app.title[0].value == "Isotropy vs clusters"
    ((_, demo),) = presets()["Demo: clusters form"].configs()
    shown = {
        "probe.steps": demo["steps"],
        "probe.snapshot_every": demo["snapshot_every"],
        "probe.metric_every": demo["metric_every"],
        "probe.limit": 0,
        "probe.data": "demo",
        "probe.snapshot_limit": demo["snapshot_limit"],
    }
    assert {key: _value(app, key) for key in shown} == shown
    assert app.toggle(key="probe.lecture_pace").value is True  # the demo goes at a lecture's pace
    runs.registry().jobs()[0].stop()
    wait_idle(120)


def _value(app: AppTest, key: str):
    found = [w for w in [*app.number_input, *app.selectbox] if w.key == key]
    return found[0].value
