"""The sidebar's controls name what they will use and refuse what cannot run before Start: the data folder
checked as it is entered (its error gone once fixed), SimCSE's "auto" training set named, the dropout
slider under "Same mask" showing the rate the run uses, the page's header one line above the charts."""

from __future__ import annotations

from pathlib import Path

from apphelpers import start_off

from ui.text import plain


def folder_errors(app) -> list[str]:
    return [e.value for e in app.sidebar.error if "Data folder" in e.value]


def test_a_wrong_data_folder_is_named_when_entered_and_cleared_when_fixed(app, tmp_path: Path) -> None:
    app.switch_page("views/isotropy.py").run()
    assert not folder_errors(app) and not app.button(key="probe.start").proto.disabled
    missing = tmp_path / "no-such-folder"
    app.text_input(key="probe.data_dir").set_value(str(missing)).run()
    (line,) = folder_errors(app)
    assert plain(str(missing)) in line and "does not exist" in line  # as Markdown shows it literally
    assert "does not exist" in start_off(app, "probe")
    (tmp_path / "data" / "rt-polarity").mkdir(parents=True)
    app.text_input(key="probe.data_dir").set_value(str(tmp_path / "data")).run()
    assert not folder_errors(app) and not app.button(key="probe.start").proto.disabled
    assert any(c.value == "Holds: rt-polarity." for c in app.sidebar.caption)


def test_simcse_auto_names_the_training_set_it_resolves_to(app, tmp_path: Path) -> None:
    app.switch_page("views/simcse.py").run()
    box = app.selectbox(key="simcse.train0")
    assert box.value == "auto" and box.options[0].startswith("auto: demo (")
    (tmp_path / "wiki").mkdir()
    app.text_input(key="simcse.data_dir").set_value(str(tmp_path)).run()
    assert app.selectbox(key="simcse.train0").options[0] == "auto: wiki1m (from the data folder)"
    app.toggle(key="simcse.mode").set_value(True).run()  # supervised: SNLI, or the demo's NLI triples
    assert app.selectbox(key="simcse.train1").options[0].startswith("auto: demo-nli (")


def test_the_dropout_slider_shows_the_rate_same_mask_fixes_and_keeps_the_users(app) -> None:
    app.switch_page("views/simcse.py").run()
    app.slider(key="simcse.dropout").set_value(0.0).run()
    assert app.slider(key="simcse.dropout").proto.format == "%.2f"
    app.toggle(key="simcse.same_mask").set_value(True).run()
    slider = app.slider(key="simcse.dropout")
    assert slider.proto.disabled and slider.proto.format == "0.10 (fixed)"  # not the user's 0.00
    app.toggle(key="simcse.same_mask").set_value(False).run()
    assert app.slider(key="simcse.dropout").value == 0.0  # the user's rate is back


def test_an_experiment_page_opens_with_its_title_and_one_line(app) -> None:
    from engine.lessons import texts as lessons
    from ui.experiment import first_clause

    app.switch_page("views/isotropy.py").run()
    intro = lessons.lesson("probe").intro
    assert app.title[0].value == "Isotropy vs clusters"
    assert app.main.caption[0].value == first_clause(intro) + "."
    assert intro not in [c.value for c in app.main.caption]  # the whole text is in the "About" popover
    assert any(m.value == intro for m in app.main.markdown)


def test_first_clause_stops_at_the_first_full_stop_colon_or_semicolon() -> None:
    from ui.experiment import first_clause

    assert first_clause("A (x. y) b. Rest.") == "A (x"  # a full stop followed by a space ends it
    assert first_clause("SimCSE (2021): the rest; more") == "SimCSE (2021)"
    assert first_clause("No stop at all") == "No stop at all"
    assert first_clause("Version 1.5 is out. More") == "Version 1.5 is out"


def test_device_auto_names_the_device_and_a_missing_gpu_turns_start_off(app) -> None:
    import torch

    app.switch_page("views/isotropy.py").run()
    expected = "the CUDA GPU" if torch.cuda.is_available() else "the CPU"
    assert f"Device auto: {expected} on this machine." in [c.value for c in app.sidebar.caption]
    if torch.cuda.is_available():
        return
    app.selectbox(key="probe.device").set_value("cuda").run()
    reason = start_off(app, "probe")
    assert "no CUDA GPU is available; pick auto or cpu" in reason and "--device" not in reason
    assert any("“Device”" in e.value for e in app.sidebar.error)
