"""Hugging Face hub fallback for the built-in data sets (used when the data folder lacks a set).

Offline-first and fast: with ``HF_HUB_OFFLINE=1`` nothing touches the network (only files already in the
cache are used); otherwise one HEAD request to the hub (<= 3 s in all) decides whether it is reachable.
Only plain data files (Parquet / text) are downloaded: no dataset scripts, no pickles.
"""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
from pathlib import Path

from engine import paths
from engine.errors import DataError

CONNECT_TIMEOUT = 3.0
_TRUE = {"1", "true", "yes", "on"}


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` (or ``HF_DATASETS_OFFLINE``) is set to a true value."""
    return any(os.environ.get(var, "").strip().lower() in _TRUE for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT") or "https://huggingface.co"


def hub_reachable(timeout: float = CONNECT_TIMEOUT) -> bool:
    """False when offline mode is set, else whether the hub answers an HTTP(S) HEAD within ``timeout`` s.

    Any HTTP status counts as an answer; DNS, TLS-verification, connection errors and time-outs do not.
    The probe runs in a daemon thread so the whole check never takes longer than ``timeout``.
    """
    if hub_offline():
        return False
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(_probe(hub_endpoint(), timeout)), daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(result and result[0])


def _probe(url: str, timeout: float) -> bool:
    request = urllib.request.Request(url.rstrip("/") + "/api/status", method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return True
    except urllib.error.HTTPError:
        return True  # the server answered
    except (OSError, ValueError):
        return False


def hub_cache_dir() -> Path:
    """Downloads go to ``cache/datasets`` (inside the lab's cache folder)."""
    path = paths.cache_dir() / "datasets"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cached_file(repo_id: str, filename: str) -> Path | None:
    """The file if an earlier download left it in the cache (no network), else None."""
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo_id, filename, repo_type="dataset", cache_dir=hub_cache_dir(),
                                    local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError and friends)
        return None


def fetch(repo_id: str, filename: str, *, what: str) -> Path:
    """Download one file of a hub dataset repo (cached); DataError naming ``what`` on any failure."""
    local = cached_file(repo_id, filename)
    if local is not None:
        return local
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo_id, filename, repo_type="dataset", cache_dir=hub_cache_dir(),
                                    etag_timeout=CONNECT_TIMEOUT))
    except Exception as err:
        detail = " ".join(str(err).split())[:200]
        raise DataError(f"{what}: download of {repo_id}/{filename} from the Hugging Face hub failed "
                        f"({type(err).__name__}: {detail})") from None
