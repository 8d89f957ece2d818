"""User text shown as text, and engine messages in the words of the pages.

Streamlit renders Markdown in messages and captions, so a label such as ``![x](http://...)`` would make the
browser fetch a URL and ``[x](...)`` would become a link. Everything a user or a file supplied goes through
:func:`plain` before it reaches ``st.error``/``st.warning``/``st.caption``.

The engine's errors are written for the command line ("pass --data-dir DIR", "EMBEDLAB_DATA_DIR", config field
names such as ``sample_size``); :func:`ui_words` says the same in the words of the pages (fields, pages), in
this one place (:data:`UI_WORDS`). :func:`message` (the error guard's line) applies both.
"""

from __future__ import annotations

import re
from typing import Any

# the characters that start Markdown constructs (links and images need [ ], emphasis * _ ~, code `, HTML < >,
# headings #, tables |, Streamlit's $math$ and :color[...]); CommonMark lets any of them be backslash-escaped
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~$])")

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
    (
        r"^(limit|steps|seed|lr|dropout|temp|device) must\b",
        lambda m: (
            f"“{ {'lr': 'Learning rate', 'limit': 'Limit'}.get(m.group(1), m.group(1).capitalize()) }” must"
        ),
    ),
]
#: config field names (and their flags) -> the fields' labels
FIELDS: dict[str, str] = {
    "same_mask": "Same mask",
    "save_encoder": "Save the trained encoder as",
    "replace_encoder": "Replace an existing one",
    "sample_size": "Geometry sample size",
    "fixed_sample": "Fixed sample",
    "geometry_every": "Spectrum every k logged steps",
    "margin": "Triplet margin",
    "snapshot_every": "UMAP frame every k steps",
    "snapshot_limit": "Points projected",
    "metric_every": "Metrics every k steps",
    "eval_every": "Evaluate every k steps",
    "eval_limit": "STS pairs evaluated",
    "batch_size": "Batch size",
    "hard_negative_weight": "Hard-negative weight α",
    "augment_rate": "k (fraction of words)",
    "label_col": "Label column",
    "text_col": "Text column",
    "data_dir": "Data folder",
    "learning rate": "Learning rate",
}
_FIELD = re.compile(
    r"(?<![\w-])(?:--)?(" + "|".join(re.escape(k).replace("_", "[_-]") for k in FIELDS) + r")(?![\w-])"
)
_KEYS = {key.replace("_", "-"): key for key in FIELDS}
_REFERENCE = re.compile(r"\(?(?:authors, )?(?:princeton-nlp/)?SimCSE#(\d+)\)?")


def plain(text: object) -> str:
    """``text`` escaped so that Markdown shows it literally (no links, images, emphasis, HTML or math)."""
    return _MARKDOWN.sub(r"\\\1", str(text)).replace("\n", " ")


def ui_words(text: object) -> str:
    """An engine message in the pages' words: command-line flags and variables become the fields that set
    them (:data:`UI_WORDS`), config field names their labels in quotes (:data:`FIELDS`)."""
    out = str(text)
    for pattern, words in UI_WORDS:
        out = re.sub(pattern, words, out)
    return _FIELD.sub(lambda m: f"“{FIELDS[_KEYS.get(m.group(1).replace('_', '-'), m.group(1))]}”", out)


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
