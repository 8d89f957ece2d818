"""The live feed: while shown runs train, the server writes what the live canvas paints to a small JSON file
every ``live_seconds``, and the canvas (``ui/live_canvas/painter.js``) fetches that file itself.

Why not a fragment rerun every second: each rerun makes the browser re-render the whole page (React, its
styles, the Markdown of every widget label), and on a small machine those cycles are taken from the training
(measured: ~0.1 of a core, most of what the live view cost the browser). Fetching and painting a file costs
the browser a fraction of that. The page reruns only when something Streamlit draws must change: each payload
carries a ``signature`` of that (run states, failed and diverging runs, logged measures, see
:func:`ui.live.signature`); the canvas compares it with the signature it was drawn with and, when they differ,
sets its component value, which reruns the chart fragment.

Files: ``<cache>/live/<server pid>/<token>.json``, one per browser session that shows a live panel, written
atomically, served read-only by Streamlit's component route (a component declared on that folder and never
drawn: ``/component/<its name>/<token>.json``). A session's file is removed when it leaves the page, the
folder when the server exits, and the folders of killed servers when the next one starts feeding.
"""

from __future__ import annotations

import atexit
import json
import logging
import math
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import settings
from engine.errors import one_line

log = logging.getLogger(__name__)

#: a payload: ``{"panels": [...], "progress": [...], "signature": str, "live": bool}``
Payload = dict[str, Any]
#: while a payload has no panels yet (a run's set-up), it is rebuilt, and fetched, this often (share of the
#: period): the first curves then show a quarter second after the first row, not up to two seconds
SETUP_SHARE = 0.25


def folder() -> Path:
    """This server's feed folder (one per process: servers that share a cache keep apart)."""
    return Path(settings.get("cache_dir")) / "live" / str(os.getpid())


def plain_json(value: Any) -> Any:
    """``value`` with every non-finite float as None: JSON has no NaN (the browser's parser refuses it)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


@dataclass
class Follow:
    """One session's feed: its file's token, how to build its payload, and what was written last."""

    token: str
    build: Callable[[], Payload]
    seconds: float
    written: bytes = b""
    due: float = 0.0
    done: bool = False  # the runs stopped changing: the last payload is written, nothing more to build


class Feeder:
    """Builds and writes the payloads of the sessions it follows into ``root`` (:meth:`tick`, from the one
    feed thread of the server)."""

    def __init__(self, root: Path, alive: Callable[[str], bool] = lambda session: True) -> None:
        self.root = root
        self.alive = alive
        self._follows: dict[str, Follow] = {}
        self._lock = threading.Lock()

    def follow(self, session: str, build: Callable[[], Payload], payload: Payload, seconds: float) -> str:
        """Follow ``session`` with ``build`` from now on (replacing what it followed); ``payload``: its payload
        now, written at once. Returns the token of its file."""
        with self._lock:
            old = self._follows.get(session)
            token = old.token if old is not None else secrets.token_urlsafe(12)
            first = seconds * (1 if payload.get("panels") else SETUP_SHARE)
            follow = self._follows[session] = Follow(token, build, seconds, due=time.monotonic() + first)
            self._write(follow, payload)
        return token

    def forget(self, session: str) -> None:
        """Stop following ``session`` and remove its file."""
        with self._lock:
            follow = self._follows.pop(session, None)
            if follow is not None:
                (self.root / f"{follow.token}.json").unlink(missing_ok=True)

    def following(self) -> list[str]:
        with self._lock:
            return list(self._follows)

    def tick(self, now: float | None = None) -> None:
        """One pass: drop the sessions that ended; build and write the payloads that are due."""
        now = time.monotonic() if now is None else now
        with self._lock:
            follows = list(self._follows.items())
        for session, follow in follows:
            if not self.alive(session):
                self.forget(session)
                continue
            if follow.done or now < follow.due:
                continue
            follow.due = now + follow.seconds
            try:
                payload = follow.build()
            except Exception as err:  # noqa: BLE001 - one session's failure must not stop the others' feeds
                log.warning("live feed: %s", one_line(err))
                continue
            with self._lock:  # a page run may have replaced this follow meanwhile: its payload is newer
                if self._follows.get(session) is not follow:
                    continue
                self._write(follow, payload)
            follow.done = not payload.get("live", False)
            if not payload.get("panels"):  # set-up: the first curves are painted within a quarter period
                follow.due = now + follow.seconds * SETUP_SHARE

    def _write(self, follow: Follow, payload: Payload) -> None:
        try:
            data = json.dumps(payload, separators=(",", ":"), allow_nan=False).encode()
        except ValueError:  # a NaN or an infinity somewhere (paint_spec's series have none): null instead
            data = json.dumps(plain_json(payload), separators=(",", ":"), allow_nan=False).encode()
        if data == follow.written:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            temporary = self.root / f".{follow.token}.tmp"
            temporary.write_bytes(data)
            os.replace(
                temporary, self.root / f"{follow.token}.json"
            )  # a reader sees the old file or the new one
            follow.written = data
        except OSError as err:
            log.warning("live feed: could not write %s: %s", self.root, one_line(err))


# ------------------------------------------------------------------------------- the server's feeder

_feeders: dict[Path, Feeder] = {}  # by folder: one in a server; a test process changes its cache folder
_feeders_lock = threading.Lock()
_thread: threading.Thread | None = None


def _tick_all() -> None:
    """The feed thread: every tenth of a second, each feeder writes what is due."""
    while True:
        time.sleep(0.1)
        with _feeders_lock:
            feeders = list(_feeders.values())
        for feeder in feeders:
            feeder.tick()


def sweep(live_root: Path) -> None:
    """Remove the feed folders of servers that ended without cleaning up (killed): those named by a process
    id that no longer runs."""
    for found in live_root.glob("*"):
        if not (found.is_dir() and found.name.isdigit()) or int(found.name) == os.getpid():
            continue
        try:
            os.kill(int(found.name), 0)
        except ProcessLookupError:
            shutil.rmtree(found, ignore_errors=True)
        except OSError:  # another user's process: still running
            continue


def _session_alive(session: str) -> bool:
    from streamlit.runtime import Runtime

    return not Runtime.exists() or Runtime.instance().is_active_session(session)


def _feeder() -> tuple[Feeder, str]:
    """This process's feeder for the current cache folder, and the name of the component that serves its
    files (declared on that folder; the component route only serves declared components' folders)."""
    import streamlit.components.v1 as components

    global _thread
    root = folder()
    with _feeders_lock:
        feeder = _feeders.get(root)
        if feeder is None:
            sweep(root.parent)
            root.mkdir(parents=True, exist_ok=True)
            feeder = _feeders[root] = Feeder(root, _session_alive)
            atexit.register(shutil.rmtree, root, ignore_errors=True)
        served = components.declare_component("embedlab_live_feed", path=str(root))
        if _thread is None:
            _thread = threading.Thread(target=_tick_all, name="embedlab-live-feed", daemon=True)
            _thread.start()
    return feeder, served.name


def _session() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def follow(build: Callable[[], Payload], payload: Payload) -> dict[str, Any]:
    """Feed this session's live canvas with ``build()`` every ``live_seconds`` from now on; ``payload``: what
    it paints now. Returns the canvas's ``feed`` argument (where to fetch, how often, the signature drawn)."""
    session = _session()
    seconds = float(settings.get("live_seconds"))
    if session is None:
        return {}
    feeder, component = _feeder()
    token = feeder.follow(session, build, payload, seconds)
    return {
        "component": component,
        "token": token,
        "seconds": seconds,
        "setupShare": SETUP_SHARE,
        "signature": payload["signature"],
    }


def forget() -> None:
    """Stop feeding this session (a page run starts: its live panel, if it has one, follows again)."""
    session = _session()
    root = folder()
    with _feeders_lock:
        feeder = _feeders.get(root)
    if session is not None and feeder is not None:
        feeder.forget(session)
