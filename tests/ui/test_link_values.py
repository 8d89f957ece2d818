"""URL values (ui/link_values.py, ui/links.py), as properties over any text: a note that quotes a URL value
renders no Markdown link, image or HTML from it; an impossible value is refused, never reported as set; a
written link carries no path of this machine (the data folder relative to the configured root)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from engine.core.errors import ConfigError
from engine.core.knobs import knobs
from engine.experiments import EXPERIMENTS
from ui import link_values, links

RENDER = MarkdownIt("commonmark", {"html": True}).enable("table")
#: text built of the pieces of Markdown and HTML that would turn into a link, an image or a tag
HOSTILE = st.lists(
    st.sampled_from(
        [
            "![x](http://127.0.0.1:9/x.png)",
            "[click me](http://e.vil)",
            "<img src=x>",
            "<b>",
            "`",
            "*",
            "_",
            "#",
            "|",
            "$x$",
            ":red[x]",
            "../../etc",
            "/etc/passwd",
            "~/x",
            " ",
            "a",
            "0",
            "1e3",
        ]
    ),
    max_size=5,
).map("".join)
VALUES = st.one_of(st.text(max_size=40), HOSTILE)


def rendered(note: str) -> str:
    """The HTML a Markdown renderer makes of a note, less the paragraph it sits in."""
    return RENDER.render(note).strip().removeprefix("<p>").removesuffix("</p>")


def linkable() -> list[tuple[object, str]]:
    return [(e, item.name) for e in EXPERIMENTS.values() for item in links.linked_knobs(e)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(linkable()), VALUES, VALUES)
def test_no_note_draws_markup_from_a_url_value(target, value: str, preset: str) -> None:
    experiment, name = target
    _, done, ignored = links.link_config(
        experiment, {name: value, links.PRESET: preset, value[:20] or "x": "1"}
    )
    for note in (links.opened_note(done), links.ignored_note(ignored)):
        html = rendered(note)
        assert not re.search(r"<(?!/?(p|br)\b)", html), (note, html)  # no tag but the paragraph's


@pytest.mark.parametrize(
    "name, value",
    [
        ("device", "../../etc"),
        ("device", "cuda:0/../x"),
        ("steps", "![x](http://127.0.0.1:9/x.png)"),
        ("train", "wiki1m"),
        ("train", "/etc/passwd"),
        ("data_dir", "/etc"),
        ("data_dir", "../up"),
        ("data_dir", "[click me](http://e.vil)"),
        ("encoder", "/home/someone/model"),
    ],
)
def test_an_impossible_value_is_refused_with_its_note_not_reported_as_set(name: str, value: str) -> None:
    config, done, ignored = links.link_config(EXPERIMENTS["simcse"], {name: value})
    assert name not in config and not done
    assert len(ignored) == 1 and ignored[0].startswith(name)


def test_a_possible_value_is_set() -> None:
    root = link_values.data_root()
    config, done, ignored = links.link_config(EXPERIMENTS["simcse"], {"device": "cpu", "train": "demo-nli"})
    assert config == {"device": "cpu", "train": "demo-nli"} and len(done) == 2 and not ignored
    if root is not None:
        config, _, ignored = links.link_config(EXPERIMENTS["jepa"], {"data_dir": "stsb"})
        assert config == {"data_dir": str(root / "stsb")} and not ignored


SEGMENTS = st.lists(st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,8}", fullmatch=True), max_size=3)
PATHS = st.one_of(
    st.builds(lambda parts: str(Path.home().joinpath(*parts)), SEGMENTS),
    st.builds(lambda parts: "/" + "/".join(parts), SEGMENTS),
    st.builds(lambda parts: "~/" + "/".join(parts), SEGMENTS),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["simcse", "jepa", "probe"]), SEGMENTS, PATHS, PATHS, st.booleans())
def test_no_written_link_holds_a_path_of_this_machine(kind, under, elsewhere, encoder, inside) -> None:
    root = Path.home() / "embedlab-data"
    experiment = EXPERIMENTS[kind]
    config = {item.name: item.default for item in knobs(experiment.config_class)}
    config |= {"data_dir": str(root.joinpath(*under)) if inside else elsewhere, "encoder": encoder}
    pairs, left_out = link_values.shareable(
        links.knob_text.changed(links.linked_knobs(experiment), config), root
    )
    query = urlencode(pairs, quote_via=quote)
    for text in (str(Path.home()), quote(str(Path.home()), safe=""), str(root)):
        assert text not in query
    assert not any(value.startswith(("/", "~")) for value in pairs.values()), pairs
    if "data_dir" in pairs:
        assert inside and pairs["data_dir"] == "/".join(under) != ""
    assert ("data_dir" in left_out) == (
        not inside and "data_dir" in {i.name for i in links.linked_knobs(experiment)}
    )


def test_the_data_folder_is_relative_to_the_root_and_left_out_when_it_is_the_root(tmp_path: Path) -> None:
    assert link_values.shareable({"data_dir": str(tmp_path)}, tmp_path) == ({}, [])
    assert link_values.shareable({"data_dir": str(tmp_path / "a" / "b")}, tmp_path) == (
        {"data_dir": "a/b"},
        [],
    )
    assert link_values.shareable({"data_dir": "/elsewhere"}, tmp_path) == ({}, ["data_dir"])
    assert link_values.data_dir_from_link("a/b", tmp_path) == str(tmp_path / "a" / "b")
    for bad in ("/abs", "a/../..", "..", "a b", "~/x", "[x](y)"):
        with pytest.raises(ConfigError, match="data_dir"):
            link_values.data_dir_from_link(bad, tmp_path)
    with pytest.raises(ConfigError, match="no data folder"):
        link_values.data_dir_from_link("a", None)


def test_run_names_keep_the_known_ones_in_order_and_name_the_others() -> None:
    found, ignored = link_values.run_names("b,![x](http://e.vil),a,b,,", ["a", "b"])
    assert found == ["b", "a"] and len(ignored) == 1
    assert "\\!\\[x\\]" in links.ignored_note(ignored)
