"""Data & encoders page: preview a built-in set, upload a CSV and pick columns, bad uploads as one line."""

from __future__ import annotations

from apphelpers import errors


def test_preview_builtin_demo(app) -> None:
    app.switch_page("views/data.py").run()
    app.selectbox(key="data.preview").set_value("demo")
    app.button(key="data.show").click().run()
    assert not app.exception and not errors(app)
    assert len(app.dataframe) >= 2
    shown = app.dataframe[1].value  # the data set's own to_frame(), first rows (after the list of sets)
    assert shown.columns.tolist() == ["text", "label"] and len(shown) == 50
    assert any("LabelledTexts: 600 items · showing the first 50" in c.value for c in app.caption)


def test_upload_csv_pick_columns_and_offer_it_to_the_probe(app) -> None:
    app.switch_page("views/data.py").run()
    rows = "\n".join(
        f"sentence number {i} about {'cats' if i % 2 else 'dogs'},{'a' if i % 2 else 'b'}" for i in range(40)
    )
    app.get("file_uploader")[0].upload("my data.csv", f"sentence,animal\n{rows}\n".encode(), "text/csv")
    app.run()
    assert not app.exception and not errors(app)
    assert app.selectbox(key="data.text.my-data.csv").value == "sentence"
    app.selectbox(key="data.label.my-data.csv").set_value("animal").run()
    assert not errors(app)
    app.switch_page("views/isotropy.py").run()
    assert "upload: my-data.csv" in app.selectbox(key="probe.data").options


def test_binary_upload_is_one_error_line(app) -> None:
    app.switch_page("views/data.py").run()
    app.get("file_uploader")[0].upload("junk.csv", bytes(range(256)) * 40, "text/csv")
    app.run()
    assert not app.exception
    lines = errors(app)
    assert len(lines) == 1 and "\n" not in lines[0] and "junk.csv" in lines[0]


def test_encoders_tab_lists_the_bundled_model(app) -> None:
    app.switch_page("views/data.py").run()
    assert not app.exception
    assert any("bundled" in str(df.value.columns.tolist()) for df in app.dataframe)
