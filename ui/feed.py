"""The live feed: while shown runs train, the server writes each live view's next chart description to a small
JSON file every ``live_seconds``, and the live view's component (``ui/web/live.js``) fetches that file itself.

Why not a fragment rerun every second: each rerun costs the browser a re-render of Streamlit's page and the
server a script run and the description sent over the websocket (measured on the Isotropy page with a probe
run training, on 2 shared cores: a one-second live fragment that drew only the live component used ~0.06 core
more of the browser and ~0.1 core more of the server than this feed). The page reruns only when something
Streamlit draws must change: each payload carries a ``signature`` of that (run states, failed and diverging
runs, damaged files: :func:`ui.live_state.signature`); the component compares it with the one it was drawn
with and, when they differ, sets a trigger value, which reruns the live fragment, which reruns the page.

Files: ``static/live/<server pid>/<token>.json`` beside ``app.py``, one per browser session that shows a live
view, served read-only by Streamlit's static file serving (``app/static/...``,
``[server] enableStaticServing``).
That file is a pointer of a fixed size, ``{"version": N}``; each payload is written once, under a new name,
``<token>-<N>.json``, and the last :data:`KEPT_VERSIONS` stay. A file replaced while the server sends it (its
length taken from one version, its bytes read from the next) broke the response ("Content-Length mismatch" in
the browser, "Exception in ASGI application" in the server log); a pointer's length never changes, and a
payload file never changes once written. A session's feed is a lease: the live fragment renews it every
:data:`RENEW_SECONDS` while the session's page is open; a feed not renewed for :data:`LEASE_SECONDS` (the
browser tab closed) is dropped with its file. The folder goes when the server exits, and the folders of killed
servers when the next one starts feeding. This module imports nothing that imports Streamlit: its thread
builds the payloads with :mod:`ui.live_state`, which does not either.

Sessions that show the same thing share the work (what a page load or an open tab costs must not grow with the
tabs: 10 tabs watching one run built its description 10 times a second, 0.08 s each, on 2 cores). A follow
may name its ``view`` (a hashable key of the runs and choices it shows, :func:`ui.live_state.view_key`) and a
``stamp`` (what its payload depends on now, :func:`ui.live_state.stamp`): when one session of a view is due,
the payload is built once and written for every session of that view (their schedules then align), and it
is not built again while the stamp stays the same (no new row, no change of state).
"""

from __future__ import annotations

import atexit
import copy
import itertools
import json
import logging
import math
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import paths
from engine.core.errors import one_line
from engine.core.setting_checks import get_or_default
from engine.runlog import liveness

log = logging.getLogger(__name__)

#: a payload: ``{"description": {...}, "signature": str, "live": bool}``
Payload = dict[str, Any]
#: while a payload has no panels yet (a run's set-up), it is rebuilt, and fetched, this often (share of the
#: period): the first curves then show a quarter second after the first row, not up to a whole period
SETUP_SHARE = 0.25
#: a feed that its session has not renewed for this long is dropped (its page is closed)
LEASE_SECONDS = 30.0
#: how often an open page's live fragment renews its feed (a fragment rerun: see the module's docstring)
RENEW_SECONDS = 10.0
#: Streamlit's static folder (served at app/static/), beside app.py
STATIC = Path(__file__).resolve().parents[1] / "static"


def folder() -> Path:
    """This server's feed folder (one per process: servers that share the app folder keep apart)."""
    return STATIC / "live" / str(os.getpid())


def url_of(path: Path) -> str:
    """The URL of a file of the static folder, relative to the app's pages."""
    return "app/static/" + path.relative_to(STATIC).as_posix()


def plain_json(value: Any) -> Any:
    """``value`` with every non-finite float as None: JSON has no NaN (the browser's parser refuses it)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


def panels_of(payload: Payload) -> bool:
    """Whether a payload has something drawn (else: a run's set-up)."""
    return bool((payload.get("description") or {}).get("panels"))


@dataclass
class Follow:
    """One session's feed: its file's token, how to build its payload, what was written last, and until when
    its lease runs."""

    token: str
    build: Callable[[], Payload]
    seconds: float
    expires: float
    written: bytes = b""
    versions: list[int] = field(default_factory=list)  # of its payload files on disk, oldest first
    due: float = 0.0
    done: bool = False  # the runs stopped changing: the last payload is written, nothing more to build
    view: Hashable | None = None  # what it shows (sessions of one view share a build); None: its own
    stamp: Callable[[], Hashable] | None = None  # what its payload depends on now (unchanged: no build)


@dataclass
class Built:
    """The last payload built for a view, its JSON, and the stamp it was built under."""

    stamp: Hashable
    payload: Payload
    data: bytes


def encode(payload: Payload) -> bytes:
    """A payload as compact JSON (every non-finite float as null)."""
    try:
        return json.dumps(payload, separators=(",", ":"), allow_nan=False).encode()
    except ValueError:  # a NaN or an infinity somewhere (paint_spec's series have none): null instead
        return json.dumps(plain_json(payload), separators=(",", ":"), allow_nan=False).encode()


#: the payload files of a feed kept besides the newest (a component that has just read the pointer fetches the
#: version it names while newer ones are written: at one payload a second, a few seconds' grace)
KEPT_VERSIONS = 4
#: the width of the version number in a pointer file: every pointer has the same length
POINTER_WIDTH = 20


def pointer(version: int) -> bytes:
    """A feed's pointer file: the newest payload's version, as JSON of a fixed length."""
    return f'{{"version":{version:>{POINTER_WIDTH}}}}'.encode()


def read_fed(pointer_file: Path) -> Payload:
    """The payload a feed's pointer file names, as the component reads it (tests, benchmarks)."""
    version = json.loads(pointer_file.read_text())["version"]
    return json.loads((pointer_file.parent / f"{pointer_file.stem}-{version}.json").read_text())


class Feeder:
    """Builds and writes the payloads of the sessions it follows into ``root`` (:meth:`tick`, from the one
    feed thread of the server)."""

    def __init__(self, root: Path, lease: float = LEASE_SECONDS) -> None:
        self.root = root
        self.lease = lease
        self._follows: dict[str, Follow] = {}
        self._built: dict[Hashable, Built] = {}  # by view: the last payload built for it
        #: by session: the token (and until when) of a feed paused by a page run, its file kept, so that the
        #: component still on the page finds its file until the page follows again (no 404 in between)
        self._kept: dict[str, tuple[Follow, float]] = {}
        self._versions = itertools.count(1)  # payload versions, never reused in this feeder
        self._lock = threading.Lock()
        self.builds = 0  # payloads built by :meth:`tick` so far (the tests count them)

    def follow(
        self,
        session: str,
        build: Callable[[], Payload],
        payload: Payload,
        seconds: float,
        now: float | None = None,
        *,
        view: Hashable | None = None,
        stamp: Callable[[], Hashable] | None = None,
    ) -> str:
        """Follow ``session`` with ``build`` from now on (replacing what it followed, renewing its lease);
        ``payload``: its payload now, written at once. ``view``: what it shows, shared with the sessions that
        show the same (None: built for it alone); ``stamp()``: what the payload depends on (the build is
        skipped while it is unchanged). Returns the token of its file."""
        now = time.monotonic() if now is None else now
        with self._lock:
            old = self._follows.get(session)
            kept = old or self._kept.pop(session, (None, 0.0))[0]
            token = kept.token if kept is not None else secrets.token_urlsafe(12)
            first = seconds * (1 if panels_of(payload) else SETUP_SHARE)
            follow = self._follows[session] = Follow(
                token, build, seconds, expires=now + self.lease, due=now + first, view=view, stamp=stamp
            )
            if kept is not None:  # the same files: the component on the page knows their names
                follow.written, follow.versions = kept.written, kept.versions
            self._write(follow, encode(payload))
        return token

    def forget(self, session: str, *, keep_file: bool = False, now: float | None = None) -> None:
        """Stop following ``session`` and remove its file; ``keep_file``: keep it (and its token, for the
        session's next :meth:`follow`) for one lease, for a page run that may follow again: the component
        on the page meanwhile fetches the file it knows, never a missing one."""
        now = time.monotonic() if now is None else now
        with self._lock:
            follow = self._follows.pop(session, None)
            if follow is not None and keep_file:
                self._kept[session] = (follow, now + self.lease)
            elif follow is not None:
                self._remove(follow)
            shown = {other.view for other in self._follows.values()}
            for view in [view for view in self._built if view not in shown]:
                del self._built[view]

    def following(self) -> list[str]:
        with self._lock:
            return list(self._follows)

    def tick(self, now: float | None = None) -> None:
        """One pass: drop the sessions that ended; build and write the payloads that are due (once per view:
        every session of a due session's view gets it)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            follows = list(self._follows.items())
            for session, (kept, until) in list(self._kept.items()):
                if now > until:  # paused and never followed again: its page is gone
                    del self._kept[session]
                    self._remove(kept)
        for session, follow in follows:
            if now > follow.expires:  # not renewed: its page is closed
                self.forget(session)
                continue
            if follow.done or now < follow.due:
                continue
            found = self._payload(follow)
            if found is None:
                follow.due = now + follow.seconds
                continue
            payload, data = found
            with self._lock:  # a page run may have replaced a follow meanwhile: its payload is newer
                served = [
                    other
                    for name, other in self._follows.items()
                    if other is follow
                    or (follow.view is not None and other.view == follow.view and not other.done)
                ]
                for other in served:
                    self._write(other, data)
            for other in served:
                other.done = not payload.get("live", False)
                # set-up: the first curves are drawn within a quarter period
                other.due = now + other.seconds * (1 if panels_of(payload) else SETUP_SHARE)
            if all(other is not follow for other in served):  # replaced meanwhile: its own schedule goes on
                follow.due = now + follow.seconds

    def _payload(self, follow: Follow) -> tuple[Payload, bytes] | None:
        """The payload of ``follow`` now and its JSON (None when the build failed: logged)."""
        try:
            return self.shared(follow.view, follow.stamp, follow.build)
        except Exception as err:  # noqa: BLE001 - one session's failure must not stop the others' feeds
            log.warning("live feed: %s", one_line(err))
            return None

    def shared(
        self, view: Hashable | None, stamp: Callable[[], Hashable] | None, build: Callable[[], Payload]
    ) -> tuple[Payload, bytes]:
        """The payload of ``view`` now and its JSON: its last build while ``stamp()`` is unchanged, else
        ``build()`` (kept for the view's sessions). Shared: the caller must not change it."""
        found = None
        if view is not None and stamp is not None:
            found = stamp()
            with self._lock:
                built = self._built.get(view)
            if built is not None and built.stamp == found:
                return built.payload, built.data
        self.builds += 1
        payload = build()
        data = encode(payload)
        if found is not None:
            with self._lock:
                self._built[view] = Built(found, payload, data)
        return payload, data

    def _write(self, follow: Follow, data: bytes) -> None:
        """``data`` as ``follow``'s next payload file, then its pointer; the oldest payload files past
        :data:`KEPT_VERSIONS` go."""
        if data == follow.written:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            version = next(self._versions)
            self._replace(f"{follow.token}-{version}.json", data)
            self._replace(f"{follow.token}.json", pointer(version))
            follow.written = data
            follow.versions.append(version)
            while len(follow.versions) > KEPT_VERSIONS:
                (self.root / f"{follow.token}-{follow.versions.pop(0)}.json").unlink(missing_ok=True)
        except OSError as err:
            log.warning("live feed: could not write %s: %s", self.root, one_line(err))

    def _replace(self, name: str, data: bytes) -> None:
        """Write ``name`` atomically: a reader opens the old file or the whole new one."""
        temporary = self.root / f".{name}.tmp"
        temporary.unlink(missing_ok=True)  # then made new: never written through a link put there
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, self.root / name)

    def _remove(self, follow: Follow) -> None:
        """A feed's pointer and payload files."""
        for version in follow.versions:
            (self.root / f"{follow.token}-{version}.json").unlink(missing_ok=True)
        (self.root / f"{follow.token}.json").unlink(missing_ok=True)


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
        if not liveness.pid_exists(int(found.name)):  # a reused PID only keeps a stale folder a while longer
            shutil.rmtree(found, ignore_errors=True)


def _feeder() -> Feeder:
    """This process's feeder (its thread started on first use)."""
    global _thread
    root = folder()
    with _feeders_lock:
        feeder = _feeders.get(root)
        if feeder is None:
            sweep(root.parent)
            root.mkdir(parents=True, exist_ok=True)
            paths.no_link(STATIC, root, what="the live feed")  # its files never written through a link
            feeder = _feeders[root] = Feeder(root)
            atexit.register(shutil.rmtree, root, ignore_errors=True)
        if _thread is None:
            _thread = threading.Thread(target=_tick_all, name="embedlab-live-feed", daemon=True)
            _thread.start()
    return feeder


def follow(
    session: str,
    build: Callable[[], Payload],
    payload: Payload,
    *,
    view: Hashable | None = None,
    stamp: Callable[[], Hashable] | None = None,
) -> dict[str, Any]:
    """Feed ``session``'s live view with ``build()`` every ``live_seconds`` from now on (for
    :data:`LEASE_SECONDS` unless renewed); ``payload``: what it draws now; ``view`` and ``stamp``: see
    :meth:`Feeder.follow` (sessions of one view share the build). Returns the component's ``feed`` argument
    (where to fetch, how often, the signature drawn)."""
    seconds = float(get_or_default("live_seconds"))  # a bad value: the banner says so (ui.navigation)
    feeder = _feeder()
    token = feeder.follow(session, build, payload, seconds, view=view, stamp=stamp)
    return {
        "url": url_of(feeder.root / f"{token}.json"),
        "seconds": seconds,
        "setupShare": SETUP_SHARE,
        "signature": payload["signature"],
    }


def current(
    build: Callable[[], Payload], *, view: Hashable | None = None, stamp: Callable[[], Hashable] | None = None
) -> Payload:
    """The payload of a live view now (a copy): the feed's last build of ``view`` while ``stamp()`` is
    unchanged, else ``build()`` (see :meth:`Feeder.shared`). A page's live fragment renews its feed with it:
    the renewals of many tabs cost one build per change, not one each."""
    return copy.deepcopy(_feeder().shared(view, stamp, build)[0])


def forget(session: str) -> None:
    """Stop feeding ``session`` at the start of its page run (a page with a live view follows again, with the
    same file; the file of a page without one goes after a lease)."""
    with _feeders_lock:
        feeder = _feeders.get(folder())
    if feeder is not None:
        feeder.forget(session, keep_file=True)
