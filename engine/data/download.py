"""Downloads of the built-in data sets from the Hugging Face hub (used when the data folder lacks a set).

Offline-first and fast: with ``HF_HUB_OFFLINE=1`` nothing touches the network (only files already in the
cache are used); otherwise one request to the hub, bounded by ``hub_timeout_seconds`` (reachability is
decided in :mod:`engine.core.hub`, shared with the model downloads), decides whether it is reachable.
Only plain data files (Parquet / text) are downloaded: no dataset scripts, no pickles.
"""

from __future__ import annotations

from pathlib import Path

from engine.core import hub, paths, settings
from engine.core.errors import DataError


def hub_offline() -> bool:
    return hub.is_offline()


def hub_reachable(repo_id: str = "stanfordnlp/snli", timeout: float | None = None) -> bool:
    """Not offline and the hub itself answered for the dataset repo within ``timeout`` s (see
    engine.core.hub)."""
    return not hub.is_offline() and hub.probe_repo(repo_id, timeout=timeout, repo_type="dataset") is not None


def hub_cache_dir() -> Path:
    """Downloads go to ``cache/datasets`` (inside the lab's cache folder)."""
    path = paths.cache_dir() / "datasets"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cached_file(repo_id: str, filename: str) -> Path | None:
    """The file if an earlier download left it in the cache (no network), else None."""
    try:
        from huggingface_hub import hf_hub_download

        return Path(
            hf_hub_download(
                repo_id, filename, repo_type="dataset", cache_dir=hub_cache_dir(), local_files_only=True
            )
        )
    except Exception:  # not cached (LocalEntryNotFoundError and friends)
        return None


def fetch(repo_id: str, filename: str, *, what: str) -> Path:
    """Download one file of a hub dataset repo (cached); DataError naming ``what`` on any failure."""
    local = cached_file(repo_id, filename)
    if local is not None:
        return local
    try:
        from huggingface_hub import hf_hub_download

        return Path(
            hf_hub_download(
                repo_id,
                filename,
                repo_type="dataset",
                cache_dir=hub_cache_dir(),
                etag_timeout=settings.get("hub_timeout_seconds"),
            )
        )
    except Exception as err:
        detail = " ".join(str(err).split())[:200]
        raise DataError(
            f"{what}: download of {repo_id}/{filename} from the Hugging Face hub failed "
            f"({type(err).__name__}: {detail})"
        ) from None
