"""User text shown as text: Streamlit renders Markdown in messages and captions, so a label such as
``![x](http://...)`` would make the browser fetch a URL and ``[x](...)`` would become a link. Everything a user
or a file supplied goes through :func:`plain` before it reaches ``st.error``/``st.warning``/``st.caption``."""

from __future__ import annotations

import re

# the characters that start Markdown constructs (links and images need [ ], emphasis * _ ~, code `, HTML < >,
# headings #, tables |, Streamlit's $math$ and :color[...]); CommonMark lets any of them be backslash-escaped
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~$])")


def plain(text: object) -> str:
    """``text`` escaped so that Markdown shows it literally (no links, images, emphasis, HTML or math)."""
    return _MARKDOWN.sub(r"\\\1", str(text)).replace("\n", " ")


def message(prefix: str, text: object) -> str:
    """``prefix`` then the escaped ``text``, without repeating a prefix the text already starts with
    (an error that names its data set after a heading that names it too)."""
    text = str(text)
    if prefix and text.startswith(prefix):
        text = text[len(prefix):]
    return plain(prefix) + plain(text)
