"""A ``results:script`` block of ``python -m engine results`` (:mod:`engine.claims.results`): what a script of
the repository prints, run bounded in time and ended with the command.

A script runs in a session of its own, so that it and anything it started end together: past the setting
``results_script_seconds``, or when the command itself is stopped (Ctrl-C, SIGTERM), the whole session is
killed (issue 47: a hanging script had no bound, and one was left running after the command's SIGTERM). Its
output goes between two markers, so output holding a marker is refused (it would open or close a block of
its own and grow the document at every run).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from engine.core import settings
from engine.core.errors import ConfigError, EmbedlabError

#: the folders whose scripts a ``script`` block may run (the repository's own, never a path from elsewhere)
SCRIPT_FOLDERS = ("scripts", "benchmarks")


class ScriptFailed(EmbedlabError):
    """The script exited non-zero, ran too long or printed a marker: its table is kept (one line why)."""


def script_path(first_word: str, root: Path) -> Path:
    """The script a block names: a ``.py`` file of one of ``root``'s :data:`SCRIPT_FOLDERS`."""
    script = (root / first_word).resolve()
    allowed = [(root / folder).resolve() for folder in SCRIPT_FOLDERS]
    if script.suffix != ".py" or not any(script.parent == folder for folder in allowed):
        raise ConfigError(
            f"results:script runs only a .py file of {' or '.join(SCRIPT_FOLDERS)}/, not {first_word!r}"
        )
    if not script.is_file():
        raise ConfigError(f"results:script: {first_word} does not exist")
    return script


def _end(process: subprocess.Popen) -> None:
    """Kill the script's whole session (it and what it started), and reap it."""
    with contextlib.suppress(OSError):  # already gone
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for pipe in (process.stdout, process.stderr):  # not read to their end: a grandchild may hold them
        if pipe is not None:
            pipe.close()


def script_output(words: list[str], root: Path, markers: object) -> str:
    """What ``python SCRIPT ARGS`` prints on stdout (run in ``root``, no shell, its own session), within the
    setting ``results_script_seconds``; ``markers`` (a compiled pattern) must not occur in it.
    :class:`ScriptFailed` for a non-zero exit (the last line of its stderr), a timeout or a marker."""
    script = script_path(words[0], root)
    limit = settings.get("results_script_seconds")
    process = subprocess.Popen(
        [sys.executable, str(script), *words[1:]],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _end(process)
        raise ScriptFailed(
            f"{words[0]} ran past {limit:g} s (EMBEDLAB_RESULTS_SCRIPT_SECONDS) and was ended"
        ) from None
    except BaseException:  # Ctrl-C or the command's SIGTERM: the script ends with the command
        _end(process)
        raise
    if process.returncode != 0:
        said = [line for line in stderr.splitlines() if line.strip()]
        raise ScriptFailed(f"{words[0]} exited {process.returncode}: {said[-1] if said else 'no message'}")
    if markers.search(stdout):  # type: ignore[attr-defined]
        raise ScriptFailed(f"{words[0]} printed a results marker (<!-- results:… -->); its table is kept")
    return stdout


def render_script(args: str, root: Path, today: str, markers: object) -> str:
    """The body of a ``script`` block: the script's output, then its command and date."""
    words = shlex.split(args)
    if not words:
        raise ConfigError("results:script needs a script, e.g. scripts/run_tables.py")
    stdout = script_output(words, root, markers)
    shown = shlex.join(["python", *words])
    footer = f"Command: `{shown}`; table written by `python -m engine results` on {today}."
    return f"{stdout.rstrip()}\n\n{footer}"
