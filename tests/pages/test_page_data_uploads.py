"""Uploads on the Data page: the newest upload is the one shown, a non-table is never stored, Delete deletes,
and labels from the file are shown as text, never as Markdown (no image fetched, no link)."""

from __future__ import annotations

from apphelpers import errors

from engine.core import paths


def _csv(label_of) -> bytes:
    rows = "\n".join(f"sentence number {i} about things,{label_of(i)}" for i in range(40))
    return f"sentence,label\n{rows}\n".encode()


def _upload(app, name: str, content: bytes) -> None:
    app.get("file_uploader")[0].upload(name, content, "text/csv")
    app.run()


def test_a_second_upload_is_the_one_shown(app) -> None:
    app.switch_page("views/data.py").run()
    _upload(app, "first.csv", _csv(lambda i: "a" if i % 2 else "b"))
    assert app.selectbox(key="data.file").value == "first.csv"
    _upload(app, "second.csv", _csv(lambda i: "x" if i % 2 else "y"))
    assert not app.exception and not errors(app)
    assert app.selectbox(key="data.file").value == "second.csv"
    (preview,) = [
        df.value for df in app.dataframe if "label" in df.value.columns and "text" in df.value.columns
    ]
    assert sorted(preview["label"].unique()) == ["x", "y"]


def test_a_binary_upload_is_refused_and_never_offered(app) -> None:
    app.switch_page("views/data.py").run()
    _upload(app, "junk.csv", bytes(range(256)) * 40)
    lines = errors(app)
    assert len(lines) == 1 and "junk.csv" in lines[0] and ".staged" not in lines[0]
    assert "junk.csv" not in [p.name for p in paths.uploads_dir().iterdir()]
    app.switch_page("views/isotropy.py").run()
    assert not any("junk" in option for option in app.selectbox(key="probe.data").options)


def test_delete_removes_the_upload_for_good(app) -> None:
    app.switch_page("views/data.py").run()
    _upload(app, "gone.csv", _csv(lambda i: "a" if i % 2 else "b"))
    assert (paths.uploads_dir() / "gone.csv").exists()
    app.button(key="data.delete.gone.csv").click().run()
    app.run()  # the uploader still held the file: a rerun must not store it again
    assert not (paths.uploads_dir() / "gone.csv").exists()
    assert not app.exception


def test_labels_are_shown_as_text_not_markdown(app) -> None:
    app.switch_page("views/data.py").run()
    image, link = "![x](http://example.invalid/a.png)", "[click](http://example.invalid)"
    labels = {0: image, 1: link}
    _upload(app, "md.csv", _csv(lambda i: labels.get(i, "a" if i % 2 else "b")))
    assert not app.exception
    shown = " ".join(w.value for w in app.warning)
    assert "single example" in shown
    assert (
        "![" not in shown and "[click]" not in shown
    )  # escaped: rendered as the plain text, no image, no link
    assert r"\!\[x\](http" in shown


def _npz(**arrays) -> bytes:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_an_npz_of_embeddings_is_previewed_and_offered_to_the_probe(app) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    labels = np.arange(40) % 2
    content = _npz(
        embeddings=rng.normal(size=(40, 8)).astype(np.float32) + labels[:, None],
        labels=labels,
        label_names=np.array(["neg", "pos"]),
    )
    app.switch_page("views/data.py").run()
    app.get("file_uploader")[0].upload("my vectors.npz", content, "application/octet-stream")
    app.run()
    assert not app.exception and not errors(app)
    assert app.selectbox(key="data.file").value == "my-vectors.npz"
    assert any("40 embeddings of 8 dimensions, 2 classes" in c.value for c in app.caption)
    (preview,) = [df.value for df in app.dataframe if "item" in df.value.columns]
    assert preview["label"].tolist()[:2] == ["neg", "pos"] and len(preview) == 40
    app.switch_page("views/isotropy.py").run()
    assert "upload: my-vectors.npz" in app.selectbox(key="probe.data").options


def test_a_bad_npz_is_one_line_in_the_pages_words_and_never_stored(app) -> None:
    import numpy as np

    bad = {
        "rows.npz": (_npz(embeddings=np.ones((4, 3)), labels=np.arange(5) % 2), "4 embeddings but 5 labels"),
        "nan.npz": (
            _npz(embeddings=np.where(np.eye(4, 3) > 0, np.nan, 1.0), labels=np.arange(4) % 2),
            "3 NaN or infinite values",
        ),
        "shape.npz": (_npz(embeddings=np.ones(12), labels=np.arange(12) % 2), "2-D array"),
        "pickle.npz": (
            _npz(embeddings=np.ones((4, 3)), labels=np.array([{"a": 1}, 0, 1, 0], dtype=object)),
            "pickled object array",
        ),
        "text.npz": (b"embeddings,labels\n1,2\n", "not a NumPy .npz archive"),
    }
    app.switch_page("views/data.py").run()
    for name, (content, reason) in bad.items():
        app.get("file_uploader")[0].upload(name, content, "application/octet-stream")
        app.run()
        assert not app.exception, name
        lines = errors(app)
        assert len(lines) == 1 and "\n" not in lines[0], (name, lines)
        assert lines[0].startswith(f"{name}: ") and reason in lines[0] and ".staged" not in lines[0], lines
        assert not (paths.uploads_dir() / name).exists()


def test_an_upload_without_labels_is_flagged_on_the_data_page_and_keeps_start_off(app) -> None:
    """A file of sentences with no label column: the Data page says the probe cannot train on it, and the
    Isotropy page keeps ▶ Start off with the fix in one line (not a failed run after Start, whose red box
    greeted every later session)."""
    from apphelpers import start_off

    rows = "\n".join(f"sentence number {i} about things" for i in range(40))
    app.switch_page("views/data.py").run()
    _upload(app, "plain.csv", f"sentence\n{rows}\n".encode())
    assert app.selectbox(key="data.label.plain.csv").value == "(none)"
    assert any("no label column" in w.value for w in app.warning), [w.value for w in app.warning]
    app.switch_page("views/isotropy.py").run()
    app.selectbox(key="probe.data").set_value("upload: plain.csv").run()
    assert not app.exception and not errors(app)
    reason = start_off(app, "probe")
    assert "plain.csv has no label column" in reason and "Label column" in reason, reason
    app.selectbox(key="probe.data").set_value("demo").run()
    assert not app.button(key="probe.start").proto.disabled


def test_a_label_column_set_to_none_is_never_replaced_by_a_guessed_one(app) -> None:
    """A labelled file whose “Label column” the user sets to “(none)” on the Data page: the Isotropy page
    keeps ▶ Start off and says so, rather than training on the column the loader would guess; picking the
    column again lets it start."""
    from apphelpers import start_off

    app.switch_page("views/data.py").run()
    _upload(app, "guessable.csv", _csv(lambda i: "a" if i % 2 else "b"))
    assert app.selectbox(key="data.label.guessable.csv").value == "label"  # the guess
    app.selectbox(key="data.label.guessable.csv").set_value("(none)").run()
    app.switch_page("views/isotropy.py").run()
    app.selectbox(key="probe.data").set_value("upload: guessable.csv").run()
    assert not app.exception and not errors(app)
    reason = start_off(app, "probe")
    assert "guessable.csv has no label column" in reason, reason
    app.switch_page("views/data.py").run()
    app.selectbox(key="data.label.guessable.csv").set_value("label").run()
    app.switch_page("views/isotropy.py").run()
    app.selectbox(key="probe.data").set_value("upload: guessable.csv").run()
    assert not app.button(key="probe.start").proto.disabled
