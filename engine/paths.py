"""Where the lab writes (``cache/``) and reads data from; sanitising of user-given names.

Every path built from user text goes through :func:`safe_name` or :func:`inside`, so nothing escapes
the cache folder.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from engine.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 80


def cache_dir() -> Path:
    """The lab's cache root: ``$EMBEDLAB_CACHE_DIR`` or ``<repo>/cache``; created on demand."""
    root = Path(os.environ.get("EMBEDLAB_CACHE_DIR") or REPO_ROOT / "cache").expanduser().resolve()
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
    """The folder of real data sets: ``--data-dir``, else ``$EMBEDLAB_DATA_DIR``, else ``None``."""
    value = explicit if explicit not in (None, "") else os.environ.get("EMBEDLAB_DATA_DIR")
    return Path(value).expanduser() if value else None


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
