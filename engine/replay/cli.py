"""``python -m engine replay RUN [RUN ...] --out lesson.html [--gif film.gif]``: a lesson to take home.

RUN is a run folder, or the name of a run under ``cache/runs``, or a group of runs (a folder with a
``group.json``, or a group's name under ``cache/groups``: :mod:`engine.groups`): its finished members,
overlaid, titled by the group's name. Frames missing from a run's film are made
from its snapshots (a progress bar on stderr) and saved into the run folder for the app, unless
``--no-save-frames``. Warnings (a damaged optional file) print as ``warning: ...`` on stderr; errors raise
one-line :class:`~engine.core.errors.EmbedlabError` that :func:`engine.cli._main` prints (exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

from engine import runlog
from engine.core import settings
from engine.core.errors import ConfigError, one_line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="a run folder, or the name of a run under cache/runs, or a group (its folder or its name under "
        "cache/groups: its finished runs); several: overlaid curves",
    )
    parser.add_argument(
        "--out", metavar="FILE.html", help="write the lesson: one HTML file that works offline"
    )
    parser.add_argument(
        "--gif", metavar="FILE.gif", help="write the UMAP film of the first run that has one as a GIF"
    )
    parser.add_argument(
        "--frames",
        type=int,
        metavar="N",
        help="frames of each film, evenly spaced over the snapshots (default: the setting "
        f"film_frames, EMBEDLAB_FILM_FRAMES, default {settings.default('film_frames')})",
    )
    parser.add_argument("--title", help="the lesson's title (default: the experiment and the run)")
    parser.add_argument(
        "--no-save-frames",
        action="store_true",
        help="do not write the frames made from snapshots into the run folder (frames/)",
    )


def _target(option: str, value: str | None, suffix: str) -> Path | None:
    """An output file whose folder exists; the suffix is added when missing."""
    if value is None:
        return None
    path = Path(value).expanduser()
    if path.suffix.lower() != suffix:
        path = path.with_name(path.name + suffix)
    if path.is_dir():
        raise ConfigError(f"{option} {value}: is a folder; give a file name such as lesson{suffix}")
    if not path.parent.is_dir():
        raise ConfigError(f"{option} {value}: the folder {path.parent} does not exist")
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or one_line(err)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError(f"cannot write {path}: {err.strerror or one_line(err)}") from None


def run(args: argparse.Namespace) -> int:
    """The ``replay`` subcommand; returns the exit code (errors raise, see the module docstring)."""
    from engine.replay import film, film_gif, lesson_html, load_run, resolve_run

    out, gif = _target("--out", args.out, ".html"), _target("--gif", args.gif, ".gif")
    if out is None and gif is None:
        raise ConfigError("replay writes --out lesson.html and/or --gif film.gif: give at least one")
    if args.frames is not None and not 1 <= args.frames <= 10_000:
        raise ConfigError(f"--frames must be between 1 and 10000, got {args.frames}")
    specs, group_title = expand_groups(args.runs)
    args.title = args.title or group_title
    folders = list(dict.fromkeys(resolve_run(spec).resolve() for spec in specs))
    runs = [load_run(folder, runlog.run_name(folder)) for folder in folders]  # each run by its name
    _disambiguate(runs)
    progress = not settings.get("no_progress")
    if out is None:  # a GIF only: the film of the first run that has snapshots or frames
        runs = [next((r for r in runs if r.snapshots or r.frames), runs[0])]
    films = [film(r, args.frames, save=not args.no_save_frames, progress=progress) for r in runs]
    for r in runs:
        for line in r.warnings:
            print(f"warning: {line}", file=sys.stderr)
    report: dict[str, object] = {
        "runs": [str(r.path) for r in runs],
        "frames": {r.name: len(f.steps) if f else 0 for r, f in zip(runs, films)},
    }
    if out is not None:
        data = lesson_html(runs, films, args.title).encode("utf-8")
        write_atomic(out, data)
        report.update(out=str(out), bytes=len(data))
    if gif is not None:
        chosen = next(((r, f) for r, f in zip(runs, films) if f is not None and f.steps), None)
        if chosen is None:
            raise ConfigError(
                f"--gif: {', '.join(r.name for r in runs)} kept no embedding snapshots, so there is no "
                "film (the film needs snapshots: run with --snapshot-every N)"
            )
        if len(runs) > 1:
            print(f"note: the GIF shows the film of {chosen[0].name}", file=sys.stderr)
        data = film_gif(chosen[1], chosen[0].points, chosen[0].name)
        write_atomic(gif, data)
        report.update(gif=str(gif), gif_bytes=len(data))
    for r, f in zip(runs, films):
        if f is None:
            print(
                f"note: {r.name} kept no embedding snapshots: the lesson has its curves, "
                "and says the film needs snapshots (--snapshot-every N)",
                file=sys.stderr,
            )
    print(json.dumps(report, indent=2))
    return 0


def expand_groups(specs: list[str]) -> tuple[list[str], str | None]:
    """``specs`` with each group (a folder holding ``group.json``, or a group's name under cache/groups)
    replaced by its finished members' run folders, and the title of the first group (None without one)."""
    from engine.groups import format as groups

    found: list[str] = []
    title = None
    for spec in specs:
        folder = Path(spec).expanduser()
        if not (folder / "group.json").is_file() and "/" not in spec:
            with contextlib.suppress(ConfigError):  # not a usable group name: a run's, resolved below
                folder = groups.group_path(spec)
        if not (folder / "group.json").is_file():
            found.append(spec)
            continue
        group = groups.read_group(folder)
        dirs = groups.member_dirs(group)
        done = [
            str(dirs[m.id])
            for m in group.members
            if m.status == groups.MemberStatus.DONE and dirs[m.id].is_dir()
        ]
        if not done:
            raise ConfigError(f"group {group.name}: no finished run to replay yet")
        found.extend(done)
        title = title or f"{group.name} ({len(done)} runs)"
    return found, title


def _disambiguate(runs: list) -> None:
    """Two runs of the same name (their config.json's, or their folders') get a ``(2)``, ``(3)``... suffix."""
    seen: dict[str, int] = {}
    for r in runs:
        count = seen.get(r.name, 0) + 1
        seen[r.name] = count
        if count > 1:
            r.name = f"{r.name} ({count})"
