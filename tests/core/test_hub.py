"""Hub access fails fast: offline flag, a server that never answers, a proxy's fake 404, real hub errors."""

from __future__ import annotations

import socket
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from waiting import wait_for

from engine.core import hub
from engine.core.errors import EncoderError


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub, "is_offline", lambda: False)
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    hub._probe_cache.clear()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts TCP connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


def _serve(status: int, headers: dict[str, str], body: bytes) -> tuple[HTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server API
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def test_offline_flag_fails_without_touching_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    probes: list[str] = []
    monkeypatch.setattr(hub, "probe_repo", lambda repo_id, *args, **kwargs: probes.append(repo_id))
    assert hub.is_offline()
    with pytest.raises(EncoderError, match="offline/unreachable"):
        hub.require_hub("org/model")
    assert probes == []


def test_silent_server_is_unreachable_after_the_setting_s_timeout(
    online, silent_server: str, monkeypatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", silent_server)
    monkeypatch.setenv("EMBEDLAB_HUB_TIMEOUT_SECONDS", "0.2")
    timeouts: list[float] = []
    real = urllib.request.urlopen

    def recording(request, timeout):
        timeouts.append(timeout)
        return real(request, timeout=timeout)

    monkeypatch.setattr(urllib.request, "urlopen", recording)
    with pytest.raises(EncoderError, match="offline/unreachable"):
        hub.require_hub("org/model")
    assert wait_for(lambda: timeouts, what="the probe's request") == [0.2]


def test_a_request_that_never_returns_is_given_up(online, monkeypatch) -> None:
    """DNS, proxies and TLS can block past urllib's own timeout: the probe runs in a daemon thread that
    require_hub stops waiting for after ``hub_timeout_seconds``. Here the request never returns until the
    test releases it, so require_hub answering at all shows it did not wait for the request."""
    monkeypatch.setenv("EMBEDLAB_HUB_TIMEOUT_SECONDS", "0.1")
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.invalid")
    release = threading.Event()

    def hanging(request, timeout):
        release.wait()
        raise OSError("released by the test")

    monkeypatch.setattr(urllib.request, "urlopen", hanging)
    outcome: list[str] = []

    def call() -> None:
        try:
            hub.require_hub("org/model")
        except EncoderError as err:
            outcome.append(str(err))

    try:
        threading.Thread(target=call, daemon=True).start()
        wait_for(lambda: outcome, what="require_hub to give up on a request that never returns")
        assert not release.is_set() and "offline/unreachable" in outcome[0]
    finally:
        release.set()


@pytest.mark.parametrize(
    "headers, body, model, match",
    [
        pytest.param({}, b"", "org/model", "offline/unreachable", id="intercepting-proxy-404-is-not-missing"),
        pytest.param(
            {"X-Error-Code": "RepoNotFound"},
            b'{"error": "Repository not found"}',
            "org/missing",
            "no model 'org/missing'",
            id="real-hub-not-found-is-named",
        ),
    ],
)
def test_a_404_is_a_missing_model_only_when_the_hub_says_so(
    online, monkeypatch, headers: dict[str, str], body: bytes, model: str, match: str
) -> None:
    """An intercepting proxy's bare 404 is not a missing model; the real hub's RepoNotFound names it."""
    server, url = _serve(404, headers, body)
    monkeypatch.setenv("HF_ENDPOINT", url)
    try:
        with pytest.raises(EncoderError, match=match):
            hub.require_hub(model)
    finally:
        server.shutdown()


def test_hub_status_parsing() -> None:
    assert hub._hub_status(200, {}, b'{"id": "a/b"}') == 200
    assert hub._hub_status(200, {}, b"<html>captive portal</html>") is None
    assert hub._hub_status(401, {"X-Error-Code": "GatedRepo"}, b"") == 401
    assert hub._hub_status(502, {}, b"") is None


@pytest.mark.parametrize(
    "good", ["bert-base-uncased", "princeton-nlp/sup-simcse-bert-base-uncased", "a/b.c_d"]
)
def test_hub_id_shapes(good: str) -> None:
    assert hub.is_hub_id(good)


@pytest.mark.parametrize("bad", ["", "/abs", "a/b/c", "a//b", "-a/b", "a/b-", "a/..", "a--b/c", "x y"])
def test_bad_hub_id_shapes(bad: str) -> None:
    assert not hub.is_hub_id(bad)
