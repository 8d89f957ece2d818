"""SimCSE page: ablation switches reach the config, a two-step run shows its curves and plane."""

from __future__ import annotations

from apphelpers import charts_drawn, csv_of, errors, start_off, wait_idle


def test_switches_and_a_tiny_simcse_run(app, downloads) -> None:
    from ui import runs

    app.switch_page("views/simcse.py").run()
    assert app.title[0].value == "SimCSE training"
    assert any("dropout" in c.value.lower() for c in app.sidebar.caption)
    app.text_input(key="simcse.data_dir").set_value("")
    app.number_input(key="simcse.steps").set_value(2)
    app.number_input(key="simcse.batch_size").set_value(8)
    app.number_input(key="simcse.eval_every").set_value(1)
    app.number_input(key="simcse.eval_limit").set_value(24)
    app.number_input(key="simcse.snapshot_every").set_value(0)
    app.toggle(key="simcse.probe").set_value(False)
    app.radio(key="simcse.augment").set_value("delete-one-word")
    app.slider(key="simcse.dropout").set_value(0.0)
    app.run()
    app.button(key="simcse.start").click().run()
    assert not app.exception and not errors(app)
    job = runs.registry().jobs()[-1]
    assert (job.config.augment, job.config.dropout, job.config.same_mask) == ("delete-one-word", 0.0, False)
    wait_idle(300)
    assert job.state == "finished", job.error
    app.run()
    assert not app.exception and not errors(app)
    buttons = {b.label: b for b in app.get("download_button")}
    table = csv_of(buttons[f"{runs.run_label(job)}.csv"], downloads)
    assert table["step"].tolist() == [0, 1, 2]
    assert table["alignment"].notna().all() and table["uniformity"].notna().all()
    assert charts_drawn(app) >= 4


def test_same_mask_with_augmentation_turns_start_off_with_one_line(app) -> None:
    app.switch_page("views/simcse.py").run()
    app.toggle(key="simcse.same_mask").set_value(True)
    app.radio(key="simcse.augment").set_value("crop")
    app.run()
    assert not app.exception
    reason = start_off(app, "simcse")
    assert "“Same mask”" in reason and "same_mask" not in reason


def test_supervised_shows_alpha(app) -> None:
    app.switch_page("views/simcse.py").run()
    app.toggle(key="simcse.mode").set_value(True).run()
    assert app.number_input(key="simcse.hard_negative_weight").value == 1.0
    assert not app.exception
