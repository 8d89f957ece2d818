"""The bundled encoder recognised by a digest of its files, without loading it: a fresh cache's first demo.

The embedding cache is keyed by the encoder's fingerprint
(:attr:`engine.encoders.encoder.Encoder.fingerprint`, which covers its weights' bytes), and
:mod:`engine.encoders.known` remembers that fingerprint under the encoder's identity once it has been loaded.
A fresh cache remembers nothing, so a new user's first demo loaded the bundled encoder (transformers' BERT
code imported and the model read: about 3 s of a cold child's start on an idle 2-core machine, 2026-12-07)
only to learn the fingerprint of the embeddings the package ships (:data:`engine.encoders.cache.PACKAGED`).

The package therefore ships, beside those embeddings, :data:`RECORD`: the bundled encoder's fingerprint and
width, with a sha256 of its folder's files (each file's relative path, size and bytes, in sorted order) and
the versions of torch, transformers and tokenizers it was made with. :func:`recognise` hashes the installed
bundled folder (about 90 MB: a read, no model built) and answers the shipped fingerprint only when the digest
and the three versions are the same; anything else (another encoder, other pooling, a changed file, other
libraries, a damaged record) is None and the encoder is loaded as before. ``scripts/ship_demo_embeddings.py``
writes the record; ``tests/encoders/test_bundled_record.py`` fails when it is stale.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

from engine.core.errors import EmbedlabError
from engine.encoders.cache import PACKAGED
from engine.encoders.loading import resolve_source
from engine.encoders.pooling import check_pooling

#: the record shipped beside the demo's embeddings
RECORD = PACKAGED / "bundled-encoder.json"
_FORMAT = "embedlab-bundled-encoder-v1"
_LIBRARIES = ("torch", "transformers", "tokenizers")
_CHUNK = 1 << 20


def libraries() -> dict[str, str | None]:
    """The installed versions of the libraries an encoder's fingerprint depends on."""
    found: dict[str, str | None] = {}
    for library in _LIBRARIES:
        try:
            found[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            found[library] = None
    return found


def folder_digest(folder: Path) -> str:
    """sha256 over every file under ``folder`` (symbolic links followed), in sorted order of relative path:
    each as its path, its size and its bytes."""
    names = []
    for root, _dirs, files in os.walk(folder, followlinks=True):
        names.extend(Path(root, name).relative_to(folder).as_posix() for name in files)
    digest = hashlib.sha256(_FORMAT.encode())
    for name in sorted(names):
        path = folder / name
        digest.update(f"|{name}|{path.stat().st_size}|".encode())
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def record_of(fingerprint: str, hidden: int, pooling: str, folder: Path) -> dict[str, Any]:
    """The record of the bundled encoder in ``folder`` loaded with ``pooling`` (its fingerprint and width)."""
    return {
        "format": _FORMAT,
        "fingerprint": fingerprint,
        "hidden": int(hidden),
        "pooling": pooling,
        "libraries": libraries(),
        "files_sha256": folder_digest(folder),
    }


def read_record(path: Path = RECORD) -> dict[str, Any] | None:
    """The record at ``path`` when it is well formed, else None (never an error)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(found, dict) or found.get("format") != _FORMAT:
        return None
    fields = (found.get("fingerprint"), found.get("files_sha256"), found.get("pooling"))
    hidden, versions = found.get("hidden"), found.get("libraries")
    if not all(isinstance(value, str) for value in fields) or type(hidden) is not int or hidden <= 0:
        return None
    if not isinstance(versions, dict):
        return None
    return found


def recognise(
    name_or_dir: str | os.PathLike | None, pooling: str | None, path: Path = RECORD
) -> tuple[str, int] | None:
    """``(fingerprint, hidden)`` of the encoder ``load_encoder(name_or_dir, pooling)`` would load, when it is
    the bundled one, with the record's pooling, files and libraries; else None."""
    record = read_record(path)
    if record is None:
        return None
    try:
        source = resolve_source(name_or_dir)
        if source.kind != "bundled":
            return None
        if (check_pooling(pooling) if pooling else source.pooling) != record["pooling"]:
            return None
        if record["libraries"] != libraries():
            return None
        if folder_digest(Path(source.location)) != record["files_sha256"]:
            return None
    except (EmbedlabError, OSError, ValueError):
        return None
    return record["fingerprint"], record["hidden"]
