"""Fail-fast access to the Hugging Face hub (models and data sets): the one place that decides reachability.

A lecture hall may have no network: before any download we check ``HF_HUB_OFFLINE`` and probe the hub
with one HTTP request in a daemon thread, bounded by a few seconds, so a missing network
becomes one clear :class:`EncoderError` instead of a hang.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from engine.core import settings
from engine.core.errors import EncoderError

_TRUE = {"1", "true", "yes", "on"}
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_HUB_ID = re.compile(rf"^{_PART}(?:/{_PART})?$")
_probe_cache: dict[str, tuple[float, int | None]] = {}
_PROBE_TTL_S = 30.0


def is_offline() -> bool:
    """True when ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` is set (now, or when huggingface_hub was
    imported)."""
    for name in ("hf_hub_offline", "transformers_offline"):
        if (settings.get(name) or "").strip().lower() in _TRUE:
            return True
    try:
        from huggingface_hub import constants
    except ImportError:  # pragma: no cover - transformers always brings it
        return True
    return bool(getattr(constants, "HF_HUB_OFFLINE", False))


def is_hub_id(text: str) -> bool:
    """Whether ``text`` has the shape of a hub model id (``name`` or ``org/name``, no ``..`` or ``--``)."""
    return bool(_HUB_ID.match(text)) and ".." not in text and "--" not in text


def endpoint() -> str:
    """The hub's base URL: ``$HF_ENDPOINT`` now, else huggingface_hub's setting, else huggingface.co."""
    value = settings.get("hf_endpoint")
    if not value:
        try:
            from huggingface_hub import constants

            value = constants.ENDPOINT
        except ImportError:  # pragma: no cover
            value = ""
    return (value or "https://huggingface.co").rstrip("/")


def _hub_status(status: int, headers: object, body: bytes) -> int | None:
    """The status when the answer really comes from a hub (JSON model info, or a JSON/X-Error-Code error),
    else None: an intercepting proxy's bare 404 must not read as "no such model"."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if status == 200 and isinstance(data, dict) and ("id" in data or "modelId" in data):
        return 200
    has_code = bool(headers is not None and headers.get("X-Error-Code"))
    if status in (401, 403, 404) and (has_code or (isinstance(data, dict) and "error" in data)):
        return status
    return None


def probe_repo(repo_id: str, timeout: float | None = None, repo_type: str = "model") -> int | None:
    """HTTP status of ``GET <endpoint>/api/<repo_type>s/<repo_id>`` within ``timeout`` s (DNS, proxy and TLS
    included: the request runs in a daemon thread), or None when the hub cannot be reached. Cached 30 s.

    A bare TCP connect is not enough: sandboxes and captive portals accept any connection.
    """
    timeout = settings.get("hub_timeout_seconds") if timeout is None else timeout
    url = f"{endpoint()}/api/{repo_type}s/{repo_id}"
    hit = _probe_cache.get(url)
    if hit is not None and time.monotonic() - hit[0] < _PROBE_TTL_S:
        return hit[1]
    result: list[int | None] = []

    def probe() -> None:
        request = urllib.request.Request(url, method="GET", headers={"User-Agent": "embedlab"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                result.append(_hub_status(int(response.status), response.headers, response.read(65536)))
        except urllib.error.HTTPError as err:
            result.append(_hub_status(int(err.code), err.headers, err.read(65536)))
        except Exception:  # noqa: BLE001 - URLError, timeouts, TLS errors, proxies: all "unreachable"
            result.append(None)

    thread = threading.Thread(target=probe, name="hub-probe", daemon=True)
    thread.start()
    thread.join(timeout)
    status = result[0] if result else None
    _probe_cache[url] = (time.monotonic(), status)
    return status


def offline_message(repo_id: str) -> str:
    return (
        f"cannot download {repo_id!r}: the Hugging Face hub is offline/unreachable; "
        "give a local folder or a cached encoder"
    )


def can_download(repo_id: str) -> bool:
    """Not offline and the hub answered for ``repo_id`` within the probe timeout."""
    return not is_offline() and probe_repo(repo_id) is not None


def require_hub(repo_id: str) -> None:
    """Raise :class:`EncoderError` within a few seconds when ``repo_id`` cannot be downloaded."""
    status = None if is_offline() else probe_repo(repo_id)
    if status is None:
        raise EncoderError(offline_message(repo_id))
    if status == 404:
        raise EncoderError(f"no model {repo_id!r} on the Hugging Face hub (check the id)")
    if status in (401, 403):
        raise EncoderError(f"model {repo_id!r} on the Hugging Face hub is private or gated (log in first)")


def cache_dir() -> Path | None:
    """The local Hugging Face cache of models: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, read now (None:
    huggingface_hub's own default, fixed when it was imported)."""
    chosen = settings.get("hf_hub_cache")
    if chosen:
        return Path(chosen).expanduser()
    home = settings.get("hf_home")
    return Path(home).expanduser() / "hub" if home else None


def cached_file(repo_id: str, filename: str) -> Path | None:
    """A file of ``repo_id`` already in the local Hugging Face cache (:func:`cache_dir`), or None (never
    touches the network): huggingface_hub's ``try_to_load_from_cache`` (the snapshot ``refs/main`` names)."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, filename, cache_dir=cache_dir())
    except Exception:  # noqa: BLE001 - a broken cache is simply a miss
        return None
    return Path(found) if isinstance(found, str) and Path(found).is_file() else None


#: the weight files a model of the cache may hold (transformers' names), one of which it must
WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def cached_model(repo_id: str) -> Path | None:
    """The snapshot folder of model ``repo_id`` in the local Hugging Face cache when it holds the model
    whole (its ``config.json`` and weights, :data:`WEIGHTS`), else None; never touches the network."""
    config = cached_file(repo_id, "config.json")
    if config is None:
        return None
    weights = [cached_file(repo_id, name) for name in WEIGHTS]
    found = [path for path in weights if path is not None and path.parent == config.parent]
    return config.parent if found else None


def hub_file(repo_id: str, filename: str, *, allow_download: bool) -> Path | None:
    """``filename`` of ``repo_id`` from the cache, else downloaded when allowed; None when absent."""
    found = cached_file(repo_id, filename)
    if found is not None or not allow_download:
        return found
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo_id, filename, etag_timeout=settings.get("hub_timeout_seconds")))
    except Exception:  # noqa: BLE001 - optional file (e.g. modules.json of a plain model)
        return None
