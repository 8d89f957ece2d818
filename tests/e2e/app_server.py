"""The one Streamlit launcher of the browser tests (:mod:`browser_flow`) and the app benchmarks
(``benchmarks/bench_app_throughput.py``, ``bench_tabs.py``, ``bench_renderer.py``, through
``benchmarks/app_driving.py``): ``streamlit run app.py`` on a free localhost port, headless, until its health
check answers; and the headless chromium's flags.

It imports nothing of the lab, so ``benchmarks/app_driving.py`` puts this folder on ``sys.path`` and the
benchmarks import it as the tests do.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
#: headless chromium's flags: no sandbox (a container), no GPU, no background traffic, no first-run pages
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: the server log's lines name their level and logger (Streamlit's default shows neither)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def streamlit_command(port: int) -> list[str]:
    """``streamlit run app.py`` headless on ``port`` of localhost, no file watcher, no usage statistics."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
        f"--logger.messageFormat={LOG_FORMAT}",
    ]


def answers(url: str) -> bool:
    """Whether the server at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def start_app(
    env: dict[str, str], log: Path | None = None, timeout: float = 120.0
) -> tuple[subprocess.Popen, str]:
    """The app's server in ``env`` (its output into ``log``, else dropped) and its URL, once it answers its
    health check; a server that exits or does not answer within ``timeout`` s is a RuntimeError naming the
    end of its log."""
    port = free_port()
    output = open(log, "w") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - the server's lifetime
    proc = subprocess.Popen(
        streamlit_command(port), cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while not answers(url):
        code = proc.poll()
        if code is not None or time.monotonic() > deadline:
            stop_app(proc)
            why = f"did not answer in {timeout:g} s" if code is None else f"exited with code {code}"
            raise RuntimeError(f"streamlit {why}\n{log_tail(log)}")
        time.sleep(0.5)
    return proc, url


def stop_app(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """SIGTERM the server, SIGKILL it after ``grace`` s."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def running_app(env: dict[str, str], log: Path | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """:func:`start_app` until the block ends."""
    proc, url = start_app(env, log)
    try:
        yield proc, url
    finally:
        stop_app(proc)


def log_tail(log: Path | None, chars: int = 2000) -> str:
    if log is None or not log.exists():
        return "no server log"
    return f"server log tail:\n{log.read_text()[-chars:]}"
