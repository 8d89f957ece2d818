"""Embeddings by the encoder's name, without loading it when they are cached: the fingerprints known by the
encoder's files.

The embedding cache (:mod:`engine.encoders.cache`) is keyed by the encoder's fingerprint, which covers its
weights' bytes, so finding a cached entry used to mean loading the encoder first: ~4 s of a demo probe's
~9 s on 2 cores (transformers' modeling code imported, the model built and read), for embeddings already on
disk. This module keeps, beside the cache, the fingerprint each loaded encoder had under its *identity*: the
folder it was loaded from, every file in it (path, size, inode, modification time and change time in ns),
the pooling and maximum length asked for, and the installed torch, transformers and tokenizers. An encoder
whose identity is known is looked up in the cache by its remembered fingerprint; on a hit it is never loaded.

Only encoders in a local folder (the bundled one, a saved one, a model folder) have an identity: a hub id
served online may change under its name. Any change to a file of the folder (a save replaces files: new
inodes) or to the installed libraries is a new identity. The change time is what a rewrite in place cannot
hide: the same size written over the same inode and its old modification time put back (``touch -r``,
``os.utime``, a copy that keeps timestamps) answered for the old weights (issue 47); the kernel sets
``st_ctime`` at every write and at ``utime`` itself, and no call sets it back (a digest of the weights'
bytes would cost a read of every file at every run). On a change: the encoder is loaded as before and its
fingerprint remembered. The memo is ``fingerprints.json`` in the cache's ``embeddings`` folder, at most
:data:`KEPT` entries, written atomically; an unreadable or damaged memo is ignored (a miss, never an error).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from engine.core import paths
from engine.core.atomic import write_text_atomic
from engine.core.errors import ConfigError, EmbedlabError, one_line
from engine.encoders.bundled_record import recognise
from engine.encoders.cache import cached, encode_cached
from engine.encoders.encoder import Encoder, Progress
from engine.encoders.loading import is_handed_over, load_encoder, resolve_source
from engine.encoders.pooling import check_pooling

log = logging.getLogger(__name__)
MEMO = "fingerprints.json"
#: the most identities the memo keeps (the newest ones)
KEPT = 64
#: a new value forgets every remembered fingerprint (bump it when :attr:`Encoder.fingerprint` or the
#: identity's parts change; v2: the files' change time, issue 47)
_FORMAT = "embedlab-fingerprints-v2"
_LIBRARIES = ("torch", "transformers", "tokenizers")


@dataclass(frozen=True)
class Known:
    """A remembered encoder: its fingerprint and its embeddings' width."""

    fingerprint: str
    hidden: int


def _files(folder: Path) -> list[list[Any]]:
    """Every file under ``folder`` (symbolic links followed) as ``[relative path, size, mtime_ns, inode,
    ctime_ns]``: the change time, which no call sets back, makes a rewrite in place a new identity."""
    found = []
    for root, _dirs, names in os.walk(folder, followlinks=True):
        for name in names:
            path = Path(root, name)
            stat = path.stat()
            found.append(
                [
                    path.relative_to(folder).as_posix(),
                    stat.st_size,
                    stat.st_mtime_ns,
                    stat.st_ino,
                    stat.st_ctime_ns,
                ]
            )
    return sorted(found)


def _version(library: str) -> str | None:
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return None


def identity(
    name_or_dir: str | os.PathLike | None, pooling: str | None, max_length: int | None = None
) -> str | None:
    """A hash of what the encoder ``load_encoder(name_or_dir, pooling, max_length=max_length)`` would load
    is made of (see the module docstring); None for an encoder that has none (a hub id), or that cannot be
    resolved (loading it says why)."""
    try:
        source = resolve_source(name_or_dir)
        if source.kind == "hub":
            return None
        folder = Path(source.location).resolve()
        described = {
            "format": _FORMAT,
            "kind": source.kind,
            "folder": str(folder),
            "pooling": check_pooling(pooling) if pooling else source.pooling,
            "max_length": max_length,
            "libraries": {library: _version(library) for library in _LIBRARIES},
            "files": _files(folder),
        }
    except (EmbedlabError, OSError, ValueError):
        return None
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


def _memo_path() -> Path:
    return paths.embeddings_dir() / MEMO


def read_memo(path: Path) -> dict[str, Known]:
    """The remembered encoders in ``path`` by identity; entries that are not well formed are left out, and
    an unreadable file is an empty memo."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    entries = found.get("entries") if isinstance(found, dict) and found.get("format") == _FORMAT else None
    if not isinstance(entries, dict):
        return {}
    memo = {}
    for key, entry in entries.items():
        if not isinstance(entry, dict):
            continue
        fingerprint, hidden = entry.get("fingerprint"), entry.get("hidden")
        if isinstance(fingerprint, str) and type(hidden) is int and hidden > 0:
            memo[key] = Known(fingerprint, hidden)
    return memo


def recall(key: str | None) -> Known | None:
    """The encoder remembered under ``key`` (:func:`identity`), or None."""
    if key is None:
        return None
    try:
        return read_memo(_memo_path()).get(key)
    except ConfigError:  # a read-only cache: nothing remembered
        return None


def _recognised(key: str | None, name_or_dir: str | os.PathLike | None, pooling: str | None) -> Known | None:
    """The bundled encoder known by its shipped record (:mod:`engine.encoders.bundled_record`: a digest of
    its files, no load), remembered under ``key`` from then on; None for any other encoder."""
    if key is None:
        return None
    found = recognise(name_or_dir, pooling)
    if found is None:
        return None
    known = Known(*found)
    _keep(key, known)
    return known


def remember(key: str | None, encoder: Encoder) -> None:
    """Keep ``encoder``'s fingerprint under ``key`` (best effort: a memo that cannot be written is only a
    later load)."""
    if key is not None:
        _keep(key, Known(encoder.fingerprint, int(encoder.hidden_size)))


def _keep(key: str, known: Known) -> None:
    """Write ``known`` under ``key`` into the memo, the newest :data:`KEPT` entries kept."""
    try:
        path = _memo_path()
    except ConfigError:
        return
    memo = read_memo(path)
    memo.pop(key, None)
    memo[key] = known
    kept = dict(list(memo.items())[-KEPT:])
    text = json.dumps(
        {
            "format": _FORMAT,
            "entries": {k: {"fingerprint": v.fingerprint, "hidden": v.hidden} for k, v in kept.items()},
        }
    )
    try:  # whole or not at all (engine.core.atomic)
        write_text_atomic(path, text)
    except OSError as err:
        log.warning("could not keep the encoder's fingerprint: %s", one_line(err))


def encode_by_name(
    name_or_dir: str | os.PathLike | None,
    texts: Sequence[str],
    *,
    pooling: str | None = None,
    device: str = "auto",
    progress: Progress | None = None,
    loading: Callable[[], None] | None = None,
    loaded: Callable[[], None] | None = None,
) -> np.ndarray:
    """``encode_cached(load_encoder(name_or_dir, pooling, device), texts)``, without the load when this
    encoder's identity is remembered and its embeddings of ``texts`` are cached. ``loading()`` is called
    just before the encoder is loaded (a set-up's progress line), ``loaded()`` just after (a stop's check).
    An encoder handed over loaded (a warm job process: :func:`engine.encoders.loading.hand_over`) is taken
    as before, so that it is freed once the embeddings are made."""
    key = identity(name_or_dir, pooling)
    known = recall(key) or _recognised(key, name_or_dir, pooling)
    if known is not None and not is_handed_over(name_or_dir, pooling, device):  # a warm one: taken and freed
        found = cached(known.fingerprint, known.hidden, texts, progress=progress)
        if found is not None:
            return found
    if loading is not None:
        loading()
    encoder = load_encoder(name_or_dir, pooling=pooling, device=device)
    if loaded is not None:
        loaded()
    array = encode_cached(encoder, texts, progress=progress)
    if identity(name_or_dir, pooling) == key:  # its files did not change while it was loaded
        remember(key, encoder)
    return array
