"""A run's readable name: made from what differs, or given by a user, kept in its folder's ``config.json``.

A generated name says what sets a run apart: its data set, each knob whose value differs from the
experiment's default (each knob's label, :mod:`engine.core.knobs`), and its steps: ``rt-polarity · dropout 0.1
· 300 steps``. A preset's run is ``<preset title> · <what differs between the preset's runs>``
(``SimCSE Figure 2 · same mask``); a preset of one run is its title. Knobs that only say where or how often a
run is measured or saved (declared ``named=False``, :func:`engine.core.knobs.knob`) never enter a name.

A name from a user is any text: trimmed, control and format characters removed (each run of them and of
white space becomes one space), at most :data:`MAX_NAME` characters; one with nothing visible left is one
ConfigError line (:func:`clean_name`). The name is the ``name`` key of ``config.json`` (:func:`rename`
rewrites that file atomically, nothing else); a folder written before names existed, or holding a name
that is not text, reads with a generated one (:func:`name_of`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.core import paths
from engine.core.config_dict import config_dict
from engine.core.declaration import Experiment, declared
from engine.core.errors import ConfigError
from engine.core.knobs import knobs
from engine.runlog.files import CONFIG, read_json, write_json_atomic

#: the longest name kept (characters); a longer one is cut, a generated one ends with "…"
MAX_NAME = 80
#: the key of ``config.json`` that holds the name
NAME_KEY = "name"
SEPARATOR = " · "
#: the knobs that name a run's data (shown first), and its length (shown last)
DATA_KNOBS = ("data", "train")
STEPS = "steps"
_FOLDER_STAMP = re.compile(r"-\d{8}-\d{6}-[0-9a-f]{4}(?:[0-9a-f]{4})?$")


def clean_name(text: object) -> str:
    """A user's run name made safe to keep and show: NFC, each run of white space, control or format
    characters one space, trimmed, at most :data:`MAX_NAME` characters. ConfigError (one line) when nothing
    visible is left or ``text`` is not text."""
    if not isinstance(text, str):
        raise ConfigError(f"a run name is text, got {type(text).__name__}")
    normal = unicodedata.normalize("NFC", text)
    kept = "".join(" " if _invisible(ch) else ch for ch in normal)
    cleaned = " ".join(kept.split())[:MAX_NAME].rstrip()
    if not cleaned:
        raise ConfigError("a run name needs at least one visible character (letters, digits, signs)")
    return cleaned


def _invisible(char: str) -> bool:
    """White space, control, format, surrogate, private-use and unassigned characters."""
    return char.isspace() or unicodedata.category(char).startswith(("C", "Z"))


def read_name(value: object) -> str | None:
    """A stored name as :func:`clean_name` keeps it; None for one that is missing, not text or empty."""
    try:
        return clean_name(value)
    except ConfigError:
        return None


def _experiment(kind: Experiment | str) -> Experiment | None:
    """``kind`` itself, or the experiment declared under that kind (None: unknown here)."""
    return kind if isinstance(kind, Experiment) else declared(kind)


def _knobs(kind: Experiment | str) -> tuple:
    experiment = _experiment(kind)
    try:
        return () if experiment is None else knobs(experiment.config_class)
    except (TypeError, AttributeError):  # not a config of knobs (a test's stand-in): no knobs
        return ()


def _kind_word(kind: Experiment | str) -> str:
    return kind.kind if isinstance(kind, Experiment) else kind


def _short_label(item: Any) -> str:
    """A knob's label without its note in brackets or a trailing symbol (``Dropout p (0 = off)``:
    ``dropout``), lower case; its field name where it has no label."""
    words = (item.label or item.name.replace("_", " ")).split(" (")[0].split()
    if len(words) > 1 and len(words[-1]) == 1:
        words = words[:-1]
    text = " ".join(words)
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) == 1 else text


def _value_text(value: Any) -> str:
    from engine.core.knobs import number_text

    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        return number_text(value)
    text = str(value)
    return Path(text).name or text if ("/" in text or "\\" in text) else text


def phrase(item: Any, value: Any) -> str:
    """One knob's value in a name: ``same mask``, ``no predictor``, ``supervised``, ``triplet``,
    ``learning rate 0.01``."""
    if item.type is bool:
        return _short_label(item) if value else f"no {_short_label(item)}"
    if item.on is not None and item.choices is not None and len(item.choices) == 2:
        return _short_label(item) if value == item.on else f"not {_short_label(item)}"
    if item.choices is not None:
        return str(value).replace("-", " ")
    if value is None:
        return f"no {_short_label(item)}"
    return f"{_short_label(item)} {_value_text(value)}"


def differences(
    kind: Experiment | str, config: Mapping[str, Any], base: Mapping[str, Any] | None = None
) -> list[str]:
    """What sets ``config`` apart from ``base`` (default: the experiment's defaults), knob by knob in
    declaration order; the data, the steps and the knobs declared ``named=False`` left out."""
    found = []
    for item in _knobs(kind):
        if not item.named or item.name in DATA_KNOBS or item.name == STEPS:
            continue
        value = config.get(item.name, item.default)
        reference = item.default if base is None else base.get(item.name, item.default)
        if value != reference:
            found.append(phrase(item, value))
    return found


def _data_text(config: Mapping[str, Any]) -> str | None:
    for name in DATA_KNOBS:
        value = config.get(name)
        if isinstance(value, str) and value:
            return _value_text(value)
    return None


def _capped(parts: list[str]) -> str:
    text = SEPARATOR.join(part for part in parts if part)
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1].rstrip(" ·") + "…"


def generated_name(kind: Experiment | str, config: Any) -> str:
    """The name of a run of experiment ``kind`` (or a declared kind) from what differs: data set (else its
    kind), the knobs off their defaults, steps (``rt-polarity · dropout 0.1 · 300 steps``, ``jepa · 100
    steps``)."""
    values = config_dict(config)
    word = _kind_word(kind)
    parts = [_data_text(values) or word, *differences(kind, values)]  # never another experiment's word
    steps = values.get(STEPS)
    if isinstance(steps, int) and not isinstance(steps, bool):
        parts.append(f"{steps:,} steps")
    return read_name(_capped(parts)) or word


def preset_run_names(
    title: str, kind: Experiment | str, base: Mapping[str, Any], runs: Mapping[str, Mapping[str, Any]]
) -> dict[str, str]:
    """Each run of a preset by its key: ``<title> · <what differs between its runs>`` (the knobs its runs
    set differently, against the preset's ``base``), the key's words where nothing differs; a preset of one
    run is its title."""
    if len(runs) <= 1:
        return {key: read_name(title) or _kind_word(kind) for key in runs}
    varying = {name for overrides in runs.values() for name in overrides}
    names = {}
    for key, overrides in runs.items():
        inside = {name: base.get(name) for name in varying if name in base}
        mine = {**inside, **{name: overrides[name] for name in varying if name in overrides}}
        said = differences(kind, mine, {**_defaults(kind), **inside})
        names[key] = read_name(_capped([title, *(said or [key.replace("-", " ")])])) or _kind_word(kind)
    return names


def _defaults(kind: Experiment | str) -> dict[str, Any]:
    return {item.name: item.default for item in _knobs(kind)}


def settings_line(kind: str, config: Mapping[str, Any]) -> str:
    """A compact line of a run's main settings: kind, data, steps, learning rate, seed
    (``probe · demo · 150 steps · lr 0.001 · seed 0``)."""
    from engine.core.knobs import number_text

    values = config_dict(config)
    parts = [kind, _data_text(values) or ""]
    if isinstance(values.get(STEPS), int):
        parts.append(f"{values[STEPS]:,} steps")
    if isinstance(values.get("lr"), (int, float)) and not isinstance(values.get("lr"), bool):
        parts.append(f"lr {number_text(values['lr'])}")
    if isinstance(values.get("seed"), int) and not isinstance(values.get("seed"), bool):
        parts.append(f"seed {values['seed']}")
    return SEPARATOR.join(part for part in parts if part)


def name_of(config: Mapping[str, Any], folder: str = "") -> str:
    """The name of a run from its ``config.json``: the stored one, else (a folder written before names) the
    name of the preset run its folder was named after, else one generated from its settings."""
    stored = read_name(config.get(NAME_KEY))
    if stored is not None:
        return stored
    kind = str(config.get("kind") or "?")
    settings = {key: value for key, value in config.items() if key not in ("kind", NAME_KEY)}
    return _old_preset_name(kind, folder) or generated_name(kind, settings)


def _old_preset_name(kind: str, folder: str) -> str | None:
    """The preset run name of an old folder ``<run key>-YYYYmmdd-HHMMSS-xxxx`` whose key is a preset's."""
    key = _FOLDER_STAMP.sub("", folder)
    if not key or key in (folder, kind):
        return None
    experiment = declared(kind)
    if experiment is None or experiment.presets is None:
        return None
    try:
        for preset in (found for found in experiment.presets(None) if found.kind == kind):
            for run_key, name in preset_run_names(preset.name, kind, preset.base, preset.runs).items():
                if run_key == key:
                    return name
    except Exception:  # noqa: BLE001 - a preset that cannot be built leaves the generated name
        return None
    return None


def run_name(run_dir: Path) -> str:
    """The name of the run in ``run_dir`` (:func:`name_of` its ``config.json``); the folder's name when that
    file cannot be read."""
    run_dir = Path(run_dir)
    try:
        return name_of(read_json(run_dir / CONFIG), run_dir.name)
    except (OSError, ValueError):
        return run_dir.name


def rename(run_dir: Path, name: str) -> str:
    """Give the run in ``run_dir`` the name ``name`` (cleaned by :func:`clean_name`); ``config.json`` is
    rewritten atomically with every other key as it was. Returns the name kept. ConfigError (one line) for
    an empty name or a folder without a readable ``config.json``."""
    cleaned = clean_name(name)
    path = Path(run_dir) / CONFIG
    try:
        config = read_json(path)
    except (OSError, ValueError) as err:
        where = Path(run_dir).name
        raise ConfigError(f"{where}: cannot rename, its {CONFIG} cannot be read ({err})") from None
    config[NAME_KEY] = cleaned
    write_json_atomic(path, config)
    return cleaned


def folder_prefix(title: str, kind: str) -> str:
    """The start of a run's folder name: its name as a file name (:func:`engine.core.paths.safe_name`), at
    most 40 characters; the kind when the name keeps no usable character."""
    try:
        return paths.safe_name(title, what="run name")[:40].rstrip(".-_") or kind
    except ConfigError:
        return kind
