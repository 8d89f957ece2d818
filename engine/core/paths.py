"""Where the lab writes (``cache/``) and reads data from; sanitising of user-given names.

Every path built from user text goes through :func:`safe_name` or :func:`inside`, so nothing escapes
the cache folder. A folder the lab cannot write is one :class:`ConfigError` line that names it
(:func:`not_writable`).
"""

from __future__ import annotations

import errno
import os
import re
import time
import unicodedata
from pathlib import Path

from engine.core import settings
from engine.core.errors import ConfigError

REPO_ROOT = settings.REPO_ROOT
MAX_NAME = 80
_KEPT_PUNCTUATION = "._-"
#: errors of a folder that cannot be made or written: permissions, a read-only file system, and a path through
#: or onto a file or a dangling link (EMBEDLAB_CACHE_DIR on one was a raw FileExistsError, issue 47)
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST, errno.ENOENT)


def not_writable(err: OSError, folder: str | os.PathLike, what: str = "folder") -> ConfigError | None:
    """The one line for a write refused by permissions or a read-only file system, else None."""
    if err.errno not in _UNWRITABLE:
        return None
    hint = (
        "set EMBEDLAB_CACHE_DIR to a writable folder" if what == "cache folder" else "choose a writable one"
    )
    return ConfigError(f"the {what} {folder} is not writable ({err.strerror or err}); {hint}")


def cache_location() -> Path:
    """Where the lab's cache root is (setting ``cache_dir``, default ``<repo>/cache``), not created."""
    return (settings.get("cache_dir") or settings.default("cache_dir")).resolve()


def cache_dir() -> Path:
    """The lab's cache root (:func:`cache_location`); created on demand."""
    root = cache_location()
    _make(root, root)
    return root


def _make(path: Path, root: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        refusal = not_writable(err, root, "cache folder")
        if refusal is None:
            raise
        raise refusal from None


def runs_dir() -> Path:
    return _sub("runs")


def groups_dir() -> Path:
    """Groups of runs (seeds, sweeps: :mod:`engine.groups`), beside the runs folder, not inside it."""
    return _sub("groups")


def claims_table_path() -> Path:
    """The latest claims table that ``python -m engine claims`` saved (``<cache>/claims/latest.json``), read
    by the app; not created here."""
    return cache_location() / "claims" / "latest.json"


def encoders_dir() -> Path:
    return _sub("encoders")


def embeddings_dir() -> Path:
    return _sub("embeddings")


def uploads_dir() -> Path:
    return _sub("uploads")


def _sub(name: str) -> Path:
    root = cache_dir()
    path = root / name
    _make(path, root)
    return path


def data_dir(explicit: str | os.PathLike | None = None) -> Path | None:
    """The folder of real data sets: ``--data-dir``, else the setting ``data_dir``, else ``None``."""
    if explicit not in (None, ""):
        return Path(explicit).expanduser()
    return settings.get("data_dir")


def app_data_dir() -> Path | None:
    """The app's data folder: the setting ``data_dir``, else ``app_data_dir`` (``../shared/data``) if it
    exists."""
    chosen = settings.get("data_dir")
    if chosen is not None:
        return chosen
    fallback = settings.get("app_data_dir")
    return fallback if fallback is not None and fallback.is_dir() else None


def command_data_dir(explicit: str | os.PathLike | None = None) -> str | None:
    """The data folder a command line reads, as the README says and the app does: ``--data-dir`` as given,
    else :func:`app_data_dir` ($EMBEDLAB_DATA_DIR, else ``../shared/data`` where it exists) made absolute, so
    that the run's ``config.json`` records the folder it used; None when there is none (the demo sets)."""
    if explicit not in (None, ""):
        return str(explicit)
    folder = app_data_dir()
    return None if folder is None else str(folder.expanduser().resolve())


def _kept(char: str) -> bool:
    """Letters and digits of any script (and their combining marks), ``.``, ``_`` and ``-``."""
    return char in _KEPT_PUNCTUATION or unicodedata.category(char)[0] in "LNM"


def _cleaned(text: str) -> str:
    """Each run of characters that are not kept becomes one ``-``; no ``..``; no dot, dash or underscore at
    either end."""
    cleaned = "".join(ch if _kept(ch) else "\0" for ch in text)
    cleaned = re.sub(r"\x00+", "-", cleaned)
    return re.sub(r"\.{2,}", ".", cleaned).strip(".-_")


def _with_extension(text: str) -> str | None:
    """``text`` cleaned as a stem and its extension (1–10 letters or digits after the last dot, kept as it
    is); "" when the stem keeps nothing, None when ``text`` has no such extension."""
    stem, dot, ext = text.rpartition(".")
    if not (dot and stem and 0 < len(ext) <= 10 and ext.isalnum()):
        return None
    base = _cleaned(stem)[: MAX_NAME - len(ext) - 1].rstrip(".-_")
    return f"{base}.{ext}" if base else ""


def safe_name(text: str, *, what: str = "name") -> str:
    """Turn user text into one file name: letters and digits of any script (NFC), ``.``, ``_`` and ``-``;
    every other run of characters (separators, spaces, control and format characters) becomes one ``-``;
    no leading dot, no ``..``, at most 80 characters, the extension kept (``日本語.csv`` stays so). A safe
    name is its own safe name (``'0:.0:'`` gives ``'0.0'``, read again as a stem and its extension).

    Raises :class:`ConfigError` when nothing usable is left (e.g. ``'../..'``, ``'???.csv'``).
    """
    normal = unicodedata.normalize("NFC", str(text).rstrip())
    cleaned = _with_extension(normal)
    if cleaned is None:  # no extension: cleaned whole, then read again as a stem and its extension
        whole = _cleaned(normal)[:MAX_NAME].rstrip(".-_")
        again = _with_extension(whole)
        cleaned = whole if again is None else again
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


def no_link(root: str | os.PathLike, path: str | os.PathLike, *, what: str = "the lab") -> Path:
    """``path`` (absolute), checked before the lab writes there: inside ``root``, with no ``..`` and no
    symbolic link in any of its parts below ``root`` (each existing part ``os.lstat``-ed, the link itself
    never followed), and its real path (``os.path.realpath``) inside ``root``'s. A write through a link
    changes a file outside the folder the lab means to write (issue 55: ``results --ship`` overwrote a
    user's config.json and metrics.csv through a linked ``docs/run-folders/cache/myrun2``).

    Raises :class:`ConfigError`, one line naming the link (or the path that leaves ``root``)."""
    base, target = Path(os.path.abspath(root)), Path(os.path.abspath(path))
    if ".." in Path(path).parts or not target.is_relative_to(base):
        raise ConfigError(f"{path}: not inside {base}; {what} writes only inside it")
    current = base
    for part in target.relative_to(base).parts:
        current = current / part
        if current.is_symlink():
            raise ConfigError(f"{current}: a symbolic link; {what} does not write through links (remove it)")
    real_base = os.path.realpath(base)
    if os.path.commonpath([real_base, os.path.realpath(target)]) != real_base:
        raise ConfigError(f"{target}: leads outside {base}; {what} writes only inside it")
    return target


def no_link_here(path: str | os.PathLike, *, what: str = "the lab") -> Path:
    """:func:`no_link` of ``path`` within its own parent folder: ``path`` itself is no symbolic link (a run
    folder, a group folder named by the user)."""
    target = Path(os.path.abspath(path))
    return no_link(target.parent, target, what=what)


def new_run_name(prefix: str) -> str:
    """A unique, sortable run folder name: ``<prefix>-YYYYmmdd-HHMMSS-xxxxxxxx`` (32 random bits: two names
    of one second collide about once in 4·10⁹ pairs; folders of before 2026-12-02 end in 4 hex digits)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    suffix = os.urandom(4).hex()
    return f"{safe_name(prefix, what='run name')}-{stamp}-{suffix}"
