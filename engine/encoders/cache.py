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

import datetime
import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine.core import paths
from engine.core.atomic import write_text_atomic
from engine.core.errors import ConfigError, one_line
from engine.encoders.encoder import Encoder, Progress, check_texts

log = logging.getLogger(__name__)
_VERSION = b"embedlab-embeddings-v1"
#: the last measured encoding rate per device type (``rates.json`` in the cache folder): a preset that encodes
#: a real data set says how long that will take before its Start (:func:`encoding_rate`)
RATES = "rates.json"
#: an encoding shorter than this many texts is not a rate worth keeping (set-up dominates)
RATE_MIN_TEXTS = 256
#: cache entries shipped with the package (see the module docstring)
PACKAGED = Path(__file__).resolve().parent.parent / "data" / "demo" / "embeddings"


def cache_key(encoder: Encoder, texts: Sequence[str]) -> str:
    """sha256 hex of the encoder fingerprint and the texts (count + each text length-prefixed)."""
    return key_of(encoder.fingerprint, check_texts(texts))


def key_of(fingerprint: str, items: Sequence[str]) -> str:
    """:func:`cache_key` of an encoder with ``fingerprint`` (``items``: checked texts)."""
    digest = hashlib.sha256(_VERSION)
    digest.update(fingerprint.encode())
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
    found = _lookup(path, len(items), encoder.hidden_size, progress)
    if found is not None:
        return found
    started = time.perf_counter()
    array = encoder.encode(items, batch_size=batch_size, progress=progress)
    if len(items) >= RATE_MIN_TEXTS:
        _record_rate(folder, str(encoder.device.type), len(items), time.perf_counter() - started)
    _write(path, array)
    return array


def _lookup(path: Path, n: int, hidden: int, progress: Progress | None) -> np.ndarray | None:
    """The cached array at ``path``, else the packaged one of its name (copied into the cache), else None; a
    hit calls ``progress(n, n)`` once."""
    found = _read(path, n, hidden)
    if found is None:
        found = _read(PACKAGED / path.name, n, hidden)
        if found is not None:
            _write(path, found)
    if found is not None and progress is not None:
        progress(n, n)
    return found


def cached(
    fingerprint: str, hidden: int, texts: Sequence[str], progress: Progress | None = None
) -> np.ndarray | None:
    """The cached embeddings of ``texts`` by the encoder with ``fingerprint`` and width ``hidden`` (what
    :func:`encode_cached` would find, with no encoder loaded), or None (not cached, or no usable cache)."""
    items = check_texts(texts)
    try:
        folder = paths.embeddings_dir()
    except ConfigError:
        return None
    return _lookup(folder / f"{key_of(fingerprint, items)}.npy", len(items), hidden, progress)


def _record_rate(folder: Path, device_type: str, count: int, seconds: float) -> None:
    """Keep ``count / seconds`` as the last encoding rate on ``device_type`` (best effort: a cache folder
    that cannot be written only loses the estimate)."""
    rates = _read_rates(folder)
    rates[device_type] = {
        "texts_per_second": round(count / max(seconds, 1e-9), 2),
        "texts": count,
        "date": datetime.date.today().isoformat(),
    }
    target = folder / RATES
    try:
        write_text_atomic(target, json.dumps(rates, indent=1))
    except OSError as err:
        log.warning("could not keep the encoding rate: %s", one_line(err))


def _read_rates(folder: Path) -> dict[str, dict]:
    try:
        found = json.loads((folder / RATES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def encoding_rate(device_type: str) -> dict | None:
    """The last measured encoding rate on ``device_type`` (``texts_per_second``, ``texts``, ``date``), or
    None when this cache has none (or it is unreadable)."""
    found = _read_rates(paths.cache_location() / "embeddings").get(device_type)  # read only: creates nothing
    rate = found.get("texts_per_second") if isinstance(found, dict) else None
    return found if isinstance(rate, (int, float)) and rate > 0 else None


def encoding_estimate(count: int, device_type: str) -> str:
    """How long encoding ``count`` texts will take on ``device_type``, in words, from the last measured rate
    there (:func:`encoding_rate`), and that a second run of the same texts reuses the cache."""
    rate = encoding_rate(device_type)
    again = "a second Start reuses the embedding cache and begins training at once"
    if rate is None:
        return (
            f"it first encodes {count:,} texts, not yet timed on this machine's {device_type} (the progress "
            f"line shows the count, rate and time left); {again}"
        )
    seconds = count / float(rate["texts_per_second"])
    took = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    return (
        f"it first encodes {count:,} texts: about {took} on this machine's {device_type} at its last "
        f"measured rate ({rate['texts_per_second']:g} texts/s, {rate['date']}); {again}"
    )
