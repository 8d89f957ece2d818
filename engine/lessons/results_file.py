"""The lessons' results file (``engine/lessons/results.json``) read against its schema.

Every page imports the lessons' texts, which print the file's figures (:mod:`engine.lessons.numbers`). A
damaged file (hand-edited, merged badly, cut) must cost only its figures: before issue 47 a 401-digit figure
raised OverflowError on four pages, and a root ``[]``, ``claims`` as a string, a preset without ``seeds`` or
with ``"seeds": []`` broke ``import engine.lessons.texts``. So :func:`read` keeps what is well formed, drops
the rest (a dropped figure prints "…"), and says what it dropped; :func:`load_checked` warns once per file
content, never raises.

The schema, as ``python -m engine lessons check --record`` writes it::

    {"claims": {"<preset> / <key>": {"preset": str, "run": str, "than": str | null, "measure": str,
                                     "expect": str, "outcome": str, "holds": bool,
                                     "figures": {name: finite number},
                                     "settings": {field: str | bool | null | finite number | list of those}}},
     "presets": {"<preset>": {"date": str, "length": str, "seeds": [int, ...] (at least one),
                              "command": str, "settings"?: str}}}
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
#: the problems already warned about, by file and content (one warning, not one per page or lesson)
_WARNED: set[tuple[str, tuple[str, ...]]] = set()
_TEXT_FIELDS = ("preset", "run", "measure", "expect", "outcome")
#: what no text of the file may hold: the lessons are Markdown (the pages' "About" popover renders them), so
#: a link, an image (fetched from the web), HTML or a code span's end in a recorded text would be drawn
_MARKUP = ("[", "]", "<", ">", "`", "\\", "\n", "\r", "://")
_PRESET_TEXT_FIELDS = ("date", "length", "command")


def is_plain(value: Any) -> bool:
    """Text that prints as itself in Markdown (none of :data:`_MARKUP`)."""
    return isinstance(value, str) and not any(mark in value for mark in _MARKUP)


def is_number(value: Any) -> bool:
    """A finite real number as JSON gives it (not a bool; an integer too large for a float is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _is_setting(value: Any) -> bool:
    if isinstance(value, list):
        return all(_is_setting(item) and not isinstance(item, list) for item in value)
    return value is None or isinstance(value, bool) or is_plain(value) or is_number(value)


def _claim(name: str, found: Any, problems: list[str]) -> dict[str, Any] | None:
    """The well-formed part of one claim's entry; None when it has none worth keeping."""
    if not isinstance(found, dict) or not all(is_plain(found.get(f)) for f in _TEXT_FIELDS):
        problems.append(f"claim {name!r} is not a claim entry")
        return None
    entry: dict[str, Any] = {field: found[field] for field in _TEXT_FIELDS}
    entry["than"] = found.get("than") if is_plain(found.get("than")) else None
    if isinstance(found.get("holds"), bool):
        entry["holds"] = found["holds"]
    elif "holds" in found:
        problems.append(f"claim {name!r}: holds is not true or false")
    for part, keep in (("figures", is_number), ("settings", _is_setting)):
        values = found.get(part, {})
        if not isinstance(values, dict):
            problems.append(f"claim {name!r}: {part} is not an object")
            values = {}
        entry[part] = {key: value for key, value in values.items() if keep(value)}
        dropped = sorted(set(values) - set(entry[part]))
        if dropped:
            problems.append(f"claim {name!r}: {part} {', '.join(dropped)} not well formed")
    return entry


def _preset(name: str, found: Any, problems: list[str]) -> dict[str, Any] | None:
    seeds = found.get("seeds") if isinstance(found, dict) else None
    if (
        not isinstance(found, dict)
        or not all(is_plain(found.get(field)) for field in _PRESET_TEXT_FIELDS)
        or not is_plain(name)
        or not isinstance(seeds, list)
        or not seeds
        or not all(type(seed) is int for seed in seeds)
    ):
        problems.append(f"preset {name!r} is not a preset entry (date, length, command, seeds)")
        return None
    entry = {field: found[field] for field in _PRESET_TEXT_FIELDS}
    entry["seeds"] = list(seeds)
    if isinstance(found.get("settings"), str):
        entry["settings"] = found["settings"]
    return entry


def checked(found: Any) -> tuple[dict[str, Any], list[str]]:
    """``found`` (the file's JSON) as ``{"claims": …, "presets": …}`` of its well-formed entries, and one
    line per thing dropped."""
    problems: list[str] = []
    if not isinstance(found, dict):
        problems.append("the file is not a JSON object")
        found = {}
    data: dict[str, Any] = {"claims": {}, "presets": {}}
    for part, check in (("presets", _preset), ("claims", _claim)):
        entries = found.get(part, {})
        if not isinstance(entries, dict):
            problems.append(f"{part} is not an object")
            continue
        for name, entry in entries.items():
            kept = check(name, entry, problems)
            if kept is not None:
                data[part][name] = kept
    damaged = set(found.get("presets", {}) if isinstance(found.get("presets"), dict) else ()) - set(
        data["presets"]
    )  # a claim of a damaged preset: where its figures come from is lost, so they print "…" too
    data["claims"] = {k: v for k, v in data["claims"].items() if v["preset"] not in damaged}
    return data, problems


def read(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The file's well-formed content and its problems; a missing file is empty, with none."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"claims": {}, "presets": {}}, []
    except (OSError, ValueError) as err:  # unreadable, not JSON, a number past int's digit limit
        return {"claims": {}, "presets": {}}, [f"unreadable ({err})"]
    return checked(found)


def load_checked(path: Path) -> dict[str, Any]:
    """:func:`read`, warning once per file content when something was dropped (its figures print "…")."""
    data, problems = read(path)
    key = (str(path), tuple(problems))
    if problems and key not in _WARNED:
        _WARNED.add(key)
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        log.warning("%s is damaged, its figures print …: %s%s", path, problems[0], more)
    return data
