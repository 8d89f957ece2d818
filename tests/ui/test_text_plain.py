"""The one escape of user text (ui.text.plain, issue 55 item 4): whatever a name holds, CommonMark (the
grammar Streamlit's Markdown follows; markdown-it-py here) draws it as one paragraph of exactly its text,
with no link, image, tag, emphasis, code, heading, list or entity; GFM's bare-URL autolinks are broken."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ui.text import plain

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

#: text rich in Markdown's and HTML's characters
NASTY = st.text(
    st.sampled_from(list("![]()<>*_`#|~$&@:/.-+=\\{}\"' \t\n1aw;x")) | st.characters(), max_size=60
)


def _shown(text: str) -> str:
    """What a browser shows of ``text`` drawn as text: its lines joined by spaces, trimmed, NUL as U+FFFD."""
    return " ".join(text.splitlines()).lstrip().replace("\0", "\ufffd")


@settings(max_examples=2000, deadline=None)
@given(NASTY)
@example("![b](http://127.0.0.1:8633/x.png) [Session expired - log in](http://127.0.0.1:8633/l)")
@example('<img src="http://127.0.0.1:8633/y.png"> **b** _i_ `c` &amp; # h')
@example("    indented")
@example("1. item")
@example("---")
def test_plain_text_renders_as_exactly_itself(text: str) -> None:
    rendered = MD.render(plain(text))
    shown = _shown(text)
    if not shown.strip():
        return
    match = re.fullmatch(r"<p>(.*)</p>\n", rendered, re.S)
    assert match, rendered
    assert "<" not in match.group(1), rendered  # no tag of any kind inside
    assert html.unescape(match.group(1)).rstrip() == shown.rstrip(), rendered


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40), st.sampled_from(["http://", "https://", "www.", "ftp://"]), st.text(max_size=20))
def test_no_bare_url_or_address_survives_as_one(before: str, scheme: str, rest: str) -> None:
    escaped = plain(f"{before}{scheme}127.0.0.1/{rest} a@b.co")
    assert not re.search(r"(?<!\\)(://|@)|www\.", escaped, re.I), escaped


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_plain_is_one_line(text: str) -> None:
    assert len(plain(text).splitlines()) <= 1
