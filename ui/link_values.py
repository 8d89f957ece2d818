"""What a URL value may be: each value a link names is checked when the page reads it, and a link is written
without a path of this machine.

Read (:func:`page_value`): a value the page's widget cannot show is refused with one line naming it, never
reported as set and then dropped (``?device=../../etc``: the device select offers auto, cpu, cuda and mps);
the data folder is a folder *under the configured data root* (the Data folder field's default,
:func:`engine.lessons.presets.default_data_dir`), given relative to it (``?data_dir=sts`` opens
``<root>/sts``; an absolute path, ``..``, or a character that is no path's is refused); the training data
is one the "Training data" choice offers. Run names (``?runs=``, :func:`run_names`) must be runs this server
knows. Written (:func:`shareable`): the data folder relative to the root (left out when it is the root, the
field's default), and any other value that is a path of this machine (an absolute or ``~`` path, an
encoder's folder) left out and named. Every line quoting a value goes through ``ui.text.plain`` where the
page draws it (:mod:`ui.links`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from engine.core.errors import ConfigError
from engine.core.knobs import Knob

DATA_DIR = "data_dir"
TRAIN = "train"
#: the training data a link may set: the "Training data" choice's own (ui.controls.training_choice)
TRAIN_OFFERED = ("demo", "demo-nli")
#: a relative folder under the data root: path segments of letters, digits, ``.``, ``_`` and ``-``
_SEGMENT = re.compile(r"[\w.-]+")
#: a value that names a place on this machine: an absolute path (POSIX or a drive), or the home
_MACHINE_PATH = re.compile(r"^(/|~|[A-Za-z]:[\\/]|\\\\)")


def data_root() -> Path | None:
    """The configured data root: the Data folder field's default (None where none is configured)."""
    from engine.lessons.presets import default_data_dir

    root = default_data_dir()
    return None if root is None else Path(root)


def relative_data_dir(value: str, root: Path | None) -> str | None:
    """``value`` (a data folder as the field holds it) as a link writes it: "" for the root itself, the path
    relative to the root for a folder under it; None for any other folder (a path of this machine)."""
    if root is None or not value:
        return None
    try:
        inside = Path(value).expanduser().resolve().relative_to(root.expanduser().resolve())
    except (OSError, ValueError):
        return None
    return "" if str(inside) == "." else inside.as_posix()


def data_dir_from_link(text: str, root: Path | None) -> str:
    """The data folder a link's relative ``text`` names under ``root``, as the field holds it; one
    ConfigError line for an absolute path, ``..``, a character that is no path's, or no root."""
    shown = text if len(text) <= 60 else text[:57] + "..."
    if root is None:
        raise ConfigError(f"{DATA_DIR}: no data folder is configured on this server, so {shown!r} names none")
    parts = PurePosixPath(text).parts if text else ()
    if _MACHINE_PATH.match(text) or any(part == ".." or not _SEGMENT.fullmatch(part) for part in parts):
        raise ConfigError(
            f"{DATA_DIR}: a link names a folder under the data folder by its relative path, got {shown!r}"
        )
    return str(root.joinpath(*parts))


def page_value(item: Knob, value: Any, root: Path | None) -> Any:
    """``value`` (parsed from a link by ``item``'s declaration) if the page's widget can show it, as the
    config holds it; one ConfigError line otherwise (the value quoted, cut to 60 characters)."""
    shown = repr(value if not isinstance(value, str) or len(value) <= 60 else value[:57] + "...")
    if item.name == DATA_DIR:
        return None if value in (None, "") else data_dir_from_link(str(value), root)
    if item.name == TRAIN and value not in (None, *TRAIN_OFFERED):
        offered = ", ".join(("auto", *TRAIN_OFFERED))
        raise ConfigError(f"{TRAIN}: the page offers {offered}, got {shown}")
    if item.options is not None and value not in item.options:
        raise ConfigError(f"{item.name}: the page offers {', '.join(item.options)}, got {shown}")
    if isinstance(value, str) and _MACHINE_PATH.match(value):
        raise ConfigError(f"{item.name}: a link never names a path of this machine, got {shown}")
    return value


def shareable(pairs: dict[str, str], root: Path | None) -> tuple[dict[str, str], list[str]]:
    """A link's ``name=text`` pairs without this machine's paths: the data folder relative to ``root`` (left
    out when it is the root), every other value that is a path of this machine left out; and the names
    left out."""
    kept: dict[str, str] = {}
    left_out: list[str] = []
    for name, text in pairs.items():
        if name == DATA_DIR:
            relative = relative_data_dir(text, root)
            if relative is None:
                left_out.append(name)
            elif relative:
                kept[name] = relative
            continue
        if _MACHINE_PATH.match(text):
            left_out.append(name)
            continue
        kept[name] = text
    return kept, left_out


def run_names(text: str, known: Iterable[str]) -> tuple[list[str], list[str]]:
    """The runs a link's ``?runs=`` names (comma-separated run ids) that this server knows, in order, once
    each, and one line per name it ignored (unknown, or no run id's characters)."""
    ids = set(known)
    found: list[str] = []
    ignored: list[str] = []
    for name in dict.fromkeys(part.strip() for part in text.split(",")):
        if not name:
            continue
        if name in ids:
            found.append(name)
        else:
            shown = name if len(name) <= 60 else name[:57] + "..."
            ignored.append(f"run {shown!r} is not a run of this server")
    return found, ignored
