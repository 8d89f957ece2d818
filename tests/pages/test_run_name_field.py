"""The run name field of an experiment's sidebar: it follows the settings until a name is typed, ▶ Start
names the run with it, a preset names its runs after itself."""

from __future__ import annotations

from apphelpers import errors, wait_idle


def test_the_name_field_follows_the_settings_until_a_name_is_typed_and_start_uses_it(app) -> None:
    from ui import runs

    app.switch_page("views/isotropy.py").run()
    field = app.text_input(key="probe.run_name")
    assert field.value.startswith("demo") and field.value.endswith("steps")
    app.number_input(key="probe.steps").set_value(6).run()
    app.number_input(key="probe.limit").set_value(120).run()
    assert app.text_input(key="probe.run_name").value == "demo · limit 120 · 6 steps"
    app.text_input(key="probe.run_name").input("  My\tlecture run ").run()
    app.number_input(key="probe.steps").set_value(5).run()
    assert app.text_input(key="probe.run_name").value == "  My\tlecture run "  # typed: kept
    app.button(key="probe.start").click().run()
    job = the_new_run(app)
    assert job.name == "My lecture run" and runs.run_label(job) == "My lecture run"
    job.stop()
    app.text_input(key="probe.run_name").input("").run()  # emptied: the generated name again
    assert app.text_input(key="probe.run_name").value == "demo · limit 120 · 5 steps"
    picker = app.multiselect(key="probe.shown")
    assert any("My lecture run — probe · demo · 5 steps" in picker.format_func(o) for o in picker.options)
    wait_idle()


def test_a_preset_names_its_run_after_itself(app) -> None:
    app.switch_page("views/isotropy.py").run()
    app.button(key="probe.preset.Demo: clusters form").click().run()
    job = the_new_run(app)
    assert job.name == "Demo: clusters form" and job.run_dir.name.startswith("Demo-clusters-form-")
    stopped(job)


def test_a_start_that_sends_back_an_earlier_generated_name_names_the_run_from_its_settings(app) -> None:
    # a click right after a setting changed can carry the field's previous generated name (the browser had
    # not drawn the new one): that is no name the user typed (it named an e2e run "demo · 600 steps" after
    # its Limit had changed, in a folder the test did not look for)
    app.switch_page("views/isotropy.py").run()
    app.number_input(key="probe.steps").set_value(6).run()
    earlier = app.text_input(key="probe.run_name").value
    app.number_input(key="probe.limit").set_value(120).run()
    app.text_input(key="probe.run_name").set_value(earlier)  # what the stale browser sends with the click
    app.button(key="probe.start").click().run()
    job = the_new_run(app)
    assert job.name == "demo · limit 120 · 6 steps" and job.run_dir.name.startswith("probe-")
    stopped(job)


def the_new_run(app):
    """The run the last click started, the page showing no exception and no error."""
    from ui import runs

    assert not app.exception and not errors(app)
    return runs.registry().jobs()[-1]


def stopped(job) -> None:
    job.stop()
    wait_idle()
