"""Where the lab writes (``cache/``) and reads data from; sanitising of user-given names.

Every path built from user text goes through :func:`safe_name` or :func:`inside`, so nothing escapes
the cache folder.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from engine import settings
from engine.errors import ConfigError

REPO_ROOT = settings.REPO_ROOT
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 80


def cache_dir() -> Path:
    """The lab's cache root (setting ``cache_dir``, default ``<repo>/cache``); created on demand."""
    root = (settings.get("cache_dir") or settings.default("cache_dir")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root


def runs_dir() -> Path:
    return _sub("runs")


def encoders_dir() -> Path:
    return _sub("encoders")


def embeddings_dir() -> Path:
    return _sub("embeddings")


def uploads_dir() -> Path:
    return _sub("uploads")


def _sub(name: str) -> Path:
    path = cache_dir() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir(explicit: str | os.PathLike | None = None) -> Path | None:
    """The folder of real data sets: ``--data-dir``, else the setting ``data_dir``, else ``None``."""
    if explicit not in (None, ""):
        return Path(explicit).expanduser()
    return settings.get("data_dir")


def app_data_dir() -> Path | None:
    """The app's data folder: the setting ``data_dir``, else ``app_data_dir`` (``../shared/data``) if it exists."""
    chosen = settings.get("data_dir")
    if chosen is not None:
        return chosen
    fallback = settings.get("app_data_dir")
    return fallback if fallback is not None and fallback.is_dir() else None


def safe_name(text: str, *, what: str = "name") -> str:
    """Turn user text into a file name of ``[A-Za-z0-9._-]`` (no leading dot, at most 80 chars).

    Raises :class:`ConfigError` when nothing usable is left (e.g. ``'../..'``).
    """
    cleaned = _SAFE.sub("-", str(text).strip()).strip(".-_")
    cleaned = re.sub(r"\.{2,}", ".", cleaned)[:MAX_NAME].strip(".-_")
    if not cleaned:
        raise ConfigError(f"{what} {text!r} has no usable characters (use letters, digits, '.', '_' or '-')")
    return cleaned


def inside(root: Path, name: str, *, what: str = "name") -> Path:
    """``root / safe_name(name)``, checked to stay inside ``root``."""
    root = root.resolve()
    path = (root / safe_name(name, what=what)).resolve()
    if path.parent != root:
        raise ConfigError(f"{what} {name!r} would leave {root}")
    return path


def new_run_name(prefix: str) -> str:
    """A unique, sortable run folder name: ``<prefix>-YYYYmmdd-HHMMSS-xxxx``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    suffix = os.urandom(2).hex()
    return f"{safe_name(prefix, what='run name')}-{stamp}-{suffix}"
