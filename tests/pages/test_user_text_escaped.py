"""User-given text is drawn as text on every page (issue 55, item 4): runs, a group and an upload named with
Markdown and HTML (an image and a link to 127.0.0.1, a tag, emphasis, code, a bare URL) render no image,
link, tag or emphasis from their names anywhere; on e23a065 Compare's notes, the run panel's info boxes
(ui/live.py, ui/isoscore_notes.py, ui/controls.py) and the download labels drew them as Markdown.

Every string that Streamlit draws as Markdown (bodies, labels, help, radio options) is rendered here with
CommonMark (markdown-it-py, HTML on) and must hold no ``<img``, ``<a``, ``<strong>``, ``<em>``, ``<code>`` or
raw tag from the names; Plotly's texts (titles, legends, hover) none of Plotly's own tags."""

from __future__ import annotations

from dataclasses import replace

import pytest
from apphelpers import APP, run_on_disk
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

from engine import groups
from engine.core import paths
from ui.navigation import page_list

markdown_it = pytest.importorskip("markdown_it")

HOST = "127.0.0.1:8633"
#: names of at most 80 characters (a run name's length), each with Markdown or HTML and the test's host
EVIL = (
    f"![b](http://{HOST}/x.png) [Session expired - log in](http://{HOST}/l)",
    f'<img src="http://{HOST}/y.png"> **bold** <b>t</b>',
    f"_it_ `code` http://{HOST}/bare $x^2$ &amp; # h",
)
#: what a CommonMark rendering of drawn text must not hold where the text holds a name
FORBIDDEN = ("<img", "<a ", "<strong", "<em>", "<code", "<b>", "<script")
#: the fields of an element that Streamlit renders as Markdown
MARKDOWN_KEYS = {"body", "label", "help"}


def _markdown_strings(value, key: str = "", markdown: bool = False):
    """The strings of an element's fields that are drawn as Markdown (a radio's options too)."""
    if isinstance(value, dict):
        radio = "options" in value and "horizontal" in value
        for k, v in value.items():
            yield from _markdown_strings(v, k, k in MARKDOWN_KEYS or (radio and k == "options"))
    elif isinstance(value, list):
        for item in value:
            yield from _markdown_strings(item, key, markdown)
    elif isinstance(value, str) and markdown:
        yield value


def _elements(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _elements(child)


def _leaks(at: AppTest) -> list[str]:
    """Each drawn string with a name in it that renders an image, link, tag or emphasis."""
    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    found = []
    for element in [*_elements(at.main), *_elements(at.sidebar)]:
        proto = getattr(element, "proto", None)
        if proto is None or not hasattr(proto, "DESCRIPTOR"):
            continue
        as_dict = MessageToDict(proto)
        for text in _markdown_strings(as_dict):
            html = md.render(text)
            if HOST in text and any(tag in html for tag in FORBIDDEN):
                found.append(f"{type(element).__name__}: {text[:160]}")
        spec = as_dict.get("spec") or as_dict.get("json") or ""
        if HOST in spec and any(tag in spec for tag in ("<a ", "<img", "<b>")):
            found.append(f"{type(element).__name__} (Plotly): {spec[spec.find(HOST) - 80 :][:160]}")
    return found


def _make_group() -> None:
    base = {"data": "demo", "steps": 3, "snapshot_every": 0}
    group = groups.create_group(paths.groups_dir() / "g", "probe", base, {"seed": [0, 1]}, name=EVIL[1])
    for member in group.members:
        group = group.with_member(replace(member, status="done", attempts=1))
    groups.write_group(group)


def test_every_page_draws_names_as_text(fresh_registry) -> None:
    for index, (name, snapshot) in enumerate(zip(EVIL, [(3, 8), (20, 4), None], strict=True)):
        run_on_disk(
            f"evil-probe-{index}", config={"name": name}, snapshot=snapshot
        )  # (3, 8): IsoScore capped
    run_on_disk(
        "evil-simcse", "simcse", config={"name": EVIL[0]}, rows=[{"step": s, "loss": 1.0} for s in range(3)]
    )
    run_on_disk("evil-failed", config={"name": EVIL[2]}, state="failed", error=EVIL[0])
    _make_group()
    (paths.uploads_dir() / "__bold__.csv").write_text("text,label\na,b\n")
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    leaks, seen = [], 0
    for script, title, _ in page_list():
        at.switch_page(script).run()
        assert not at.exception, (title, at.exception)
        leaks += [f"{title}: {line}" for line in _leaks(at)]
        for picker in [m for m in at.multiselect if str(m.key).endswith(".shown")]:
            picker.set_value(list(picker.options)).run()
            assert not at.exception, (title, at.exception)
            leaks += [f"{title} with every run shown: {line}" for line in _leaks(at)]
            seen += sum(HOST in text for text in _drawn(at))
    assert not leaks, "\n".join(leaks)
    assert seen >= 10, "the names were not drawn: the test sees nothing"


def _drawn(at: AppTest) -> list[str]:
    elements = [*_elements(at.main), *_elements(at.sidebar)]
    protos = [e.proto for e in elements if hasattr(getattr(e, "proto", None), "DESCRIPTOR")]
    return [text for proto in protos for text in _markdown_strings(MessageToDict(proto))]
