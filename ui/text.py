"""User text shown as text, and engine messages in the words of the pages.

Streamlit renders Markdown in messages and captions, so a label such as ``![x](http://...)`` would make the
browser fetch a URL and ``[x](...)`` would become a link. Everything a user or a file supplied goes through
:func:`plain` before it reaches ``st.error``/``st.warning``/``st.caption``.

The engine's errors are written for the command line ("pass --data-dir DIR", "EMBEDLAB_DATA_DIR", config field
names such as ``sample_size``); :func:`ui_words` says the same in the words of the pages (fields, pages), in
this one place (:data:`UI_WORDS`), and config field names as the labels their knobs declare (:func:`labels`).
:func:`message` (the error guard's line) applies both.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# the characters that start Markdown constructs (links and images need [ ], emphasis * _ ~, code `, HTML < >,
# headings #, tables |, Streamlit's $math$ and :color[...], an entity's &), the ":" of "://", the "." of
# "www." and "@" (GFM's autolinks of a bare URL or address), and a list's or heading's mark at the start;
# CommonMark lets any ASCII punctuation be backslash-escaped (spec 0.31, section 2.4)
_MARKDOWN = re.compile(r"[\\`*_{}\[\]<>#!|~$@]|&(?=#?\w+;)|:(?=//)|(?<=www)\.|^[-+=]|^\d{1,9}[.)]", re.I)

#: command-line words -> the pages' words, tried in this order (longer phrases first)
UI_WORDS: list[tuple[str, Any]] = [
    (r"\(no --data-dir given and EMBEDLAB_DATA_DIR unset\)", "(the Data folder field is empty)"),
    (r"offline \(HF_HUB_OFFLINE=1\)", "offline"),
    (
        r"pass --data-dir DIR, a folder holding (\S+)",
        r"set the “Data folder” field to a folder holding \1 (the Data & encoders page, tab “Get the data”, "
        r"shows how to get it)",
    ),
    (r"pass --data-dir DIR", "set the “Data folder” field"),
    (r"\(or --data-dir for built-in sets\)", "(or the “Data folder” field for built-in sets)"),
    (r"--data-dir", "the “Data folder” field"),
    (r"\$?EMBEDLAB_DATA_DIR", "the “Data folder” field"),
    (r"HF_HUB_OFFLINE=1", "offline mode"),
    (r"\$?EMBEDLAB_MAX_ROWS", "the lab's row limit"),
    (r"choose another name or allow replacing it", "choose another name or tick “Replace an existing one”"),
    (r"--force", "a new run"),
    (r"use --device (\w+) or (\w+)", r"pick \1 or \2"),
]


def short_label(label: str) -> str:
    """A field's label without its closing note in brackets (“UMAP frame every k steps (0 = off)” → “UMAP
    frame every k steps”), unless that leaves almost nothing (“k (fraction of words)” stays)."""
    short = re.sub(r"\s*\([^()]*\)$", "", label)
    return short if len(short) >= 3 else label


def _knobs() -> list[Any]:
    """The knobs of every registered experiment (:mod:`engine.core.knobs`)."""
    from engine.core.knobs import knobs
    from engine.experiments import EXPERIMENTS

    return [item for e in EXPERIMENTS.values() for item in knobs(e.config_class)]


@functools.cache
def labels() -> dict[str, str]:
    """Config field names (and the names their errors use, ``what``) -> the fields' labels, as the knob
    declarations of the registered experiments say them (the first declaration of a name wins)."""
    found: dict[str, str] = {}
    for item in _knobs():
        if item.label:
            found.setdefault(item.name, short_label(item.label))
            if item.what:
                found.setdefault(item.what, short_label(item.label))
    return found


@functools.cache
def _fields() -> tuple[dict[str, str], re.Pattern[str], dict[str, str], re.Pattern[str]]:
    """The labels of the fields whose names are words of their own (``sample_size``, ``learning rate``), found
    anywhere in a message, with their pattern; and the one-word fields' (``steps``; an unlabelled one: its
    name, capitalised), found only as the subject of a check's message (``steps must ...``)."""
    every = labels()
    anywhere = {name: label for name, label in every.items() if not name.isalpha()}
    field = re.compile(
        r"(?<![\w-])(?:--)?(" + "|".join(re.escape(k).replace("_", "[_-]") for k in anywhere) + r")(?![\w-])"
    )
    words = {
        item.name: every.get(item.name, item.name.capitalize()) for item in _knobs() if item.name.isalpha()
    }
    leading = re.compile(r"^(" + "|".join(words) + r") must\b")
    return anywhere, field, words, leading


_REFERENCE = re.compile(r"\(?(?:authors, )?(?:princeton-nlp/)?SimCSE#(\d+)\)?")


def plain(text: object) -> str:
    """``text`` escaped so that Markdown shows it literally (no links, images, emphasis, HTML or math): the
    one escape of every piece of user-given text drawn as Markdown (names of runs, groups, encoders, data,
    labels and uploads); its lines joined by spaces, its leading white space dropped (no code block), a
    backslash before each character of :data:`_MARKDOWN`."""
    one_line = " ".join(str(text).splitlines()).lstrip()
    return _MARKDOWN.sub(lambda found: f"{found.group(0)[:-1]}\\{found.group(0)[-1]}", one_line)


def ui_words(text: object) -> str:
    """An engine message in the pages' words: command-line flags and variables become the fields that set
    them (:data:`UI_WORDS`), config field names their labels in quotes (:func:`labels`)."""
    out = str(text)
    for pattern, words in UI_WORDS:
        out = re.sub(pattern, words, out)
    anywhere, field, words, leading = _fields()
    keys = {key.replace("_", "-"): key for key in anywhere}
    out = leading.sub(lambda m: f"“{words[m.group(1)]}” must", out)
    return field.sub(lambda m: f"“{anywhere[keys.get(m.group(1).replace('_', '-'), m.group(1))]}”", out)


def message(prefix: str, text: object) -> str:
    """``prefix`` then the escaped ``text`` in the pages' words (:func:`ui_words`), without repeating a
    prefix the text already starts with (an error that names its data set after a heading that names it
    too), at any depth ("rt-polarity: rt-polarity: ..." shows it once)."""
    text = ui_words(text)
    head = prefix.strip()
    if head:
        while text.strip().startswith(head):
            text = text.strip()[len(head) :].lstrip()
    return plain(prefix) + plain(text)


def readable_references(text: str) -> str:
    """Markdown of an engine explanation whose issue references ("SimCSE#36") become readable links."""
    return _REFERENCE.sub(
        lambda m: (
            f"(the SimCSE authors' answer in [their GitHub issue {m.group(1)}]"
            f"(https://github.com/princeton-nlp/SimCSE/issues/{m.group(1)}))"
        ),
        text,
    )
