"""A saved encoder's model card (its README.md): what it is (parameters, size on disk), how it was made
(training data and its size, steps, batch, learning rate, seed, pooler, precision, the run), what it was
evaluated on and how much of it, its final metrics, the one command that makes it again, and how to load it
(:func:`engine.encoders.portable.load_section`).

Every value that a user or a file named (run, data, encoder and file names, a card's keys) is written as
Markdown text, escaped (:func:`markdown_text`): CommonMark lets any ASCII punctuation be backslash-escaped
(spec 0.31, "Backslash escapes"), so a name holding ``<script>``, a ``# heading``, backticks, a link or an
image shows as the characters it is and makes no tag, heading, code span, link or image (issue 55). A
value is never put in a code span, where backslashes do not escape; the command is a fenced code block
whose fence is longer than any run of its fence character inside it (spec, "Fenced code blocks").
"""

from __future__ import annotations

import re
from typing import Any

from engine.encoders.portable import load_section

#: the characters that start a Markdown or HTML construct: links and images ``[ ] !``, emphasis ``* _ ~``,
#: code spans (the backtick), HTML and autolinks ``< >``, entities ``&``, headings ``#``, tables ``|``, math
#: ``$``, and the backslash itself
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~$&])")
#: a leading list, ordered-list or rule marker: ``-``, ``+``, ``=``, or up to 9 digits and ``.`` or ``)``
_LEADING = re.compile(r"^([-+=]|\d{1,9}(?=[.)]))")
#: the card keys drawn in their own lines or sections; any other key goes under "Other"
SHOWN = {"base_model", "start", "data", "train_data", "train_size", "steps", "batch_size", "lr", "seed"}
SHOWN |= {"pooler", "precision", "evaluation", "run", "switches", "metrics", "final_metrics", "command"}
SHOWN |= {"config", "train_unit"}  # the run's settings are in the command, not dumped


def markdown_text(value: object) -> str:
    """``value`` as Markdown text that shows exactly its characters: each Markdown or HTML character
    backslash-escaped, line breaks as spaces (a name never starts a line of its own), no leading blanks (4
    would open a code block in a list item) and a leading list or rule marker (``-``, ``+``, ``=``, ``1.``)
    escaped, since a card's value follows a list item's marker."""
    text = _MARKDOWN.sub(r"\\\1", str(value)).replace("\r", " ").replace("\n", " ").lstrip(" \t")
    return _LEADING.sub(_escaped_marker, text)


def _escaped_marker(match: re.Match[str]) -> str:
    """``-`` as ``\\-``; ``12`` (before ``.`` or ``)``) as ``12\\`` (the backslash escapes the dot)."""
    marker = match[1]
    return f"{marker}\\" if marker[0].isdigit() else f"\\{marker}"


def _fmt(value: object) -> str:
    """A card value as escaped text: floats to 4 decimals, None as "—"."""
    if isinstance(value, float):
        return f"{value:.4f}"
    return "—" if value is None else markdown_text(value)


def made_by(run: object) -> str:
    """The run that made an encoder, in words: its name and its folder under cache/runs (``—``: unknown)."""
    if not isinstance(run, dict) or not run.get("folder"):
        return "—"
    name = run.get("name")
    folder = markdown_text(f"cache/runs/{run['folder']}")
    return f"{markdown_text(name)} ({folder})" if name and name != run["folder"] else folder


def count(value: object, unit: str) -> str:
    """A whole number with thousands separators and its unit (``10,000 sentences``); "—" when unknown."""
    return f"{value:,} {unit}" if isinstance(value, int) and not isinstance(value, bool) else "—"


def rate(value: object) -> str:
    """A learning rate as written in a config (``3e-05``, ``0.001``); "—" when unknown."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return f"{value:g}" if ok else _fmt(value)


def size_on_disk(size: object) -> str:
    """Bytes in MB (10⁶ bytes) with the exact count: ``90.9 MB (90,868,512 bytes)``; "—" when unknown."""
    if not isinstance(size, int) or isinstance(size, bool):
        return "—"
    return f"{size / 1e6:.1f} MB ({size:,} bytes)"


def fenced(command: str) -> list[str]:
    """``command`` as a fenced code block (shell), its fence longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", command)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}bash", command.replace("\r", " ").replace("\n", " "), fence]


def render_card(name: str, meta: dict) -> str:
    """README.md of the saved encoder ``name`` (a safe folder name) from its ``embedlab.json`` ``meta``."""
    card = meta.get("card") if isinstance(meta.get("card"), dict) else {}
    lines = [f"# {markdown_text(name)}", "", "Sentence encoder saved by embedlab.", ""]
    lines += [
        f"- Base model: {_fmt(card.get('base_model') or meta.get('base_model'))}",
        *([f"- Started from: {_fmt(card['start'])}"] if card.get("start") else []),
        f"- Parameters: {count(meta.get('parameters'), 'weights')}",
        f"- Size on disk: {size_on_disk(meta.get('size_bytes'))}",
        f"- Pooling: {_fmt(meta.get('pooling'))}"
        + (" with MLP" if meta.get("mlp") else "")
        + (", L2-normalised" if meta.get("normalize") else ""),
        f"- Max length: {_fmt(meta.get('max_length'))}",
        f"- Training data: {_fmt(card.get('data') or card.get('train_data'))}",
        f"- Training-set size: {count(card.get('train_size'), card.get('train_unit') or 'examples')}",
        f"- Steps: {_fmt(card.get('steps'))}",
        f"- Batch size: {_fmt(card.get('batch_size'))}",
        f"- Learning rate: {rate(card.get('lr'))}",
        f"- Seed: {_fmt(card.get('seed'))}",
        f"- Pooler: {_fmt(card.get('pooler'))}",
        f"- Precision: {_fmt(card.get('precision'))}",
        f"- Evaluation set: {_fmt(card.get('evaluation'))}",
        f"- Made by run: {made_by(card.get('run'))}",
        f"- Date saved: {_fmt(meta.get('created'))}",
        "",
    ]
    lines += _sections(card)
    has_st = bool(meta.get("sentence_transformers"))
    lines += load_section(name, meta, has_st, has_st and meta.get("pooling") == "cls")
    return "\n".join(lines)


def _sections(card: dict[str, Any]) -> list[str]:
    """The card's switches, final metrics, the command that makes the encoder again, and its other keys."""
    lines: list[str] = []
    switches = card.get("switches")
    if isinstance(switches, dict) and switches:
        lines += ["## Switches", ""] + [f"- {_fmt(k)}: {_fmt(v)}" for k, v in switches.items()] + [""]
    elif switches:
        lines += ["## Switches", "", f"- {_fmt(switches)}", ""]
    metrics = card.get("metrics") or card.get("final_metrics")
    if isinstance(metrics, dict) and metrics:
        lines += ["## Final metrics", "", "| metric | value |", "|---|---|"]
        lines += [f"| {_fmt(k)} | {_fmt(v)} |" for k, v in metrics.items()] + [""]
    if card.get("command"):
        lines += [
            "## Make it again",
            "",
            "With the data folder that holds its training and evaluation sets:",
            "",
        ]
        lines += [*fenced(str(card["command"])), ""]
    extra = {k: v for k, v in card.items() if k not in SHOWN}
    if extra:
        lines += ["## Other", ""] + [f"- {_fmt(k)}: {_fmt(v)}" for k, v in extra.items()] + [""]
    return lines
