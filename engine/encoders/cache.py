"""On-disk embedding cache: the same encoder on the same texts is never encoded twice.

Key = sha256(version, encoder fingerprint (weights, pooling, normalize, max length, ...), n, every text
length-prefixed). Files: ``paths.embeddings_dir()/<key>.npy``, written atomically (temp file + os.replace),
read with ``allow_pickle=False``; a corrupt or mismatched file is ignored with a warning and recomputed.

The package ships one entry, :data:`PACKAGED`: the bundled encoder's embeddings of the built-in demo corpus
(600 × 384 float32, made by ``scripts/ship_demo_embeddings.py``). A miss whose key it holds copies it into the
cache instead of encoding: a new user's first demo click then skips ~2 s of encoding on 2 cores. Its key
covers the encoder's weights and settings, so any other encoder, or a changed one, encodes as before.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine import paths
from engine.encoders.encoder import Encoder, Progress, check_texts
from engine.errors import ConfigError, one_line

log = logging.getLogger(__name__)
_VERSION = b"embedlab-embeddings-v1"
#: cache entries shipped with the package (see the module docstring)
PACKAGED = Path(__file__).resolve().parent.parent / "data" / "demo" / "embeddings"


def cache_key(encoder: Encoder, texts: Sequence[str]) -> str:
    """sha256 hex of the encoder fingerprint and the texts (count + each text length-prefixed)."""
    items = check_texts(texts)
    digest = hashlib.sha256(_VERSION)
    digest.update(encoder.fingerprint.encode())
    digest.update(f"|n={len(items)}|".encode())
    for text in items:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _read(path: Path, n: int, hidden: int) -> np.ndarray | None:
    if not path.is_file():
        return None
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        log.warning("ignoring corrupt embedding cache file %s: %s", path.name, one_line(err))
        return None
    if not isinstance(array, np.ndarray) or array.dtype != np.float32 or array.shape != (n, hidden):
        log.warning("ignoring embedding cache file %s: unexpected shape/dtype", path.name)
        return None
    if not np.isfinite(array).all():
        log.warning("ignoring embedding cache file %s: non-finite values", path.name)
        return None
    return array


def _write(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as err:  # a full disk must not lose the computed embeddings
        log.warning("could not write embedding cache %s: %s", path.name, one_line(err))
        tmp.unlink(missing_ok=True)


def encode_cached(
    encoder: Encoder, texts: Sequence[str], batch_size: int = 64, progress: Progress | None = None
) -> np.ndarray:
    """``encoder.encode(texts)`` through the disk cache; a hit calls ``progress(n, n)`` once."""
    items = check_texts(texts)
    try:
        folder = paths.embeddings_dir()
    except ConfigError as err:  # a read-only cache: encode without it, say so once a call
        log.warning("embedding cache not used: %s", err)
        return encoder.encode(items, batch_size=batch_size, progress=progress)
    path = folder / f"{cache_key(encoder, items)}.npy"
    cached = _read(path, len(items), encoder.hidden_size)
    if cached is None:
        cached = _read(PACKAGED / path.name, len(items), encoder.hidden_size)
        if cached is not None:
            _write(path, cached)
    if cached is not None:
        if progress is not None:
            progress(len(items), len(items))
        return cached
    array = encoder.encode(items, batch_size=batch_size, progress=progress)
    _write(path, array)
    return array
