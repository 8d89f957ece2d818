"""Command line: ``python -m engine KIND ... --out DIR``, one subcommand per registered experiment
(:mod:`engine.experiments`); ``settings`` lists the settings (``--knobs``: every experiment's knobs),
``replay RUN --out lesson.html`` makes a lesson to take home (:mod:`engine.replay`), ``lessons check`` runs
the lessons' presets and checks their claims (:mod:`engine.lessons.check`). The run plumbing is
shared: the run folder (:mod:`engine.runlog.out_dir`), ``--events`` (:mod:`engine.runlog.event_stream`),
progress, signals and exit codes (:mod:`engine.command`); an experiment's flags come from its
config's declarations (:mod:`engine.core.flags`).

Errors a user can cause print one line on stderr and exit 2; any other failure prints one line and exits 1;
Ctrl-C stops the run between steps (exit 130). Nothing is ever lost: rows are on disk as they are produced.

For the app's job runner (:mod:`engine.jobs`): ``--config-json`` takes the settings as the config dataclass's
fields in JSON, and ``--events`` prints the run's liveness on stdout (see
:class:`~engine.runlog.event_stream.EventStream`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from engine.command.exits import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USER_ERROR
from engine.command.progress import ProgressBar
from engine.command.signals import stop_on_sigterm
from engine.command.threads import set_threads
from engine.compute.allocator import keep_freed_memory
from engine.core import knobs, paths, settings
from engine.core.errors import ConfigError, EmbedlabError, RunFailed, one_line
from engine.core.flags import add_seeds_flag
from engine.core.setting_checks import check_all
from engine.experiments import EXPERIMENTS
from engine.runlog import naming
from engine.runlog.event_stream import EventStream
from engine.runlog.events import Event, Finished
from engine.runlog.out_dir import prepare_out_dir, say_where
from engine.runlog.runner import run_experiment
from engine.runlog.states import RunState


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="embedlab experiments, headless")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for kind, experiment in EXPERIMENTS.items():
        sub = commands.add_parser(kind, help=experiment.title, description=experiment.title)
        sub.add_argument(
            "--out", required=True, help="run folder to write (metrics.csv, config.json, summary.json)"
        )
        sub.add_argument(
            "--force", action="store_true", help="overwrite a run folder that already holds a run"
        )
        sub.add_argument(
            "--config-json",
            metavar="JSON|FILE",
            help="all settings as JSON (the config's fields; text or a file), instead of the flags",
        )
        sub.add_argument(
            "--events",
            action="store_true",
            help="print the run's liveness on stdout, one JSON line per event (progress, a tick "
            "per row on disk, the summary at the end); for engine.jobs",
        )
        sub.add_argument(
            "--threads",
            type=int,
            metavar="N",
            help="CPU threads of torch (default: torch's choice, one per physical core)",
        )
        EXPERIMENTS[kind].command_line.add_arguments(sub)
        add_seeds_flag(sub)
    listing = commands.add_parser(
        "settings",
        help="list every setting and its environment variable",
        description="Every setting of the lab, its environment variable, type and default; with --knobs, "
        "every experiment's knobs (flag, type, default, range and meaning).",
    )
    listing.add_argument("--markdown", action="store_true", help="print a Markdown table (for the README)")
    listing.add_argument(
        "--knobs",
        action="store_true",
        help="list the knobs of each experiment (its config's fields, their flags and ranges) instead",
    )
    from engine.replay import cli as replay_cli

    replay = commands.add_parser(
        "replay",
        help="a run as a lesson to take home: one offline HTML file, a GIF",
        description="A run (or several) as one self-contained HTML file that works "
        "offline (curves, relation figure, UMAP film, settings, the lesson's "
        "texts), and its UMAP film as an animated GIF.",
    )
    replay_cli.add_arguments(replay)
    from engine.sweep import cli as sweep_cli  # a grid of runs as a group, locally or on Ray

    sweep_cli.add_parser(commands)
    from engine.groups import cli as group_cli  # a group's state and summary

    group_cli.add_parser(commands)
    from engine.claims import cli as claims_cli

    claims_cli.add_parser(commands)
    from engine.claims import results  # the tables of docs/results.md from their run folders and groups

    results.add_parser(commands)
    from engine.lessons import check as lessons_check

    lessons_check.add_arguments(
        commands.add_parser(
            "lessons",
            help="check the lessons' claims against runs of their presets",
            description="Each lesson's claims, checked against real runs of its presets.",
        )
    )
    return parser


def print_settings(markdown: bool, with_knobs: bool = False) -> int:
    """``python -m engine settings``: the table of :mod:`engine.core.settings`; with ``--knobs``, one table
    per experiment of its config's knobs (:func:`engine.core.knobs.table`)."""
    if not with_knobs:
        print(settings.markdown_table() if markdown else _columns(settings.table(), "meaning"))
        return 0
    for kind, experiment in EXPERIMENTS.items():
        config_class = experiment.config_class
        if markdown:
            print(
                f"### `python -m engine {kind}`: {experiment.title}\n\n{knobs.markdown_table(config_class)}\n"
            )
        else:
            print(f"{kind}: {experiment.title}\n{_columns(knobs.table(config_class), 'meaning')}\n")
    return 0


def _columns(rows: list[dict[str, str]], last: str) -> str:
    """Rows as aligned plain-text columns under a header, the ``last`` column unpadded."""
    keys = [key for key in rows[0] if key != last]
    widths = {key: max(len(key), *(len(row[key]) for row in rows)) for key in keys}
    lines = [{key: key for key in rows[0]}, *rows]
    return "\n".join(
        "  ".join(row[key].ljust(widths[key]) for key in keys) + "  " + row[last] for row in lines
    )


def load_config_json(kind: str, text: str) -> Any:
    """The config of ``kind`` from ``--config-json`` (JSON text, or the path of a JSON file)."""
    source = text if text.lstrip().startswith("{") else None
    if source is None:
        try:
            source = Path(text).read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"--config-json {text}: {err.strerror or err}") from err
    try:
        values = json.loads(source)
    except ValueError as err:
        raise ConfigError(f"--config-json: not valid JSON ({err})") from err
    if not isinstance(values, dict):
        raise ConfigError("--config-json: expected a JSON object of settings")
    values.pop("kind", None)
    values.pop("name", None)  # a run folder's config.json: its name is not a setting (--name gives one)
    return EXPERIMENTS[kind].make_config(**values)


def execute(kind: str, args: argparse.Namespace) -> int:
    if getattr(args, "name", None) is not None:
        naming.clean_name(args.name)  # a name with nothing visible: one line, before any folder is made
    set_threads(getattr(args, "threads", None))
    cli = EXPERIMENTS[kind].command_line
    config_json = getattr(args, "config_json", None)
    config = load_config_json(kind, config_json) if config_json else cli.config_from_args(args)
    events = bool(getattr(args, "events", False))
    if not events:  # the app's child gets the folder the app chose (a blank field: none)
        config = with_data_folder(config)
    if getattr(args, "seeds", None) is not None:  # a group of runs, one per seed (engine.groups); "" refused
        from engine.groups.seeds import run_seed_group

        return run_seed_group(kind, config, args.out, args.seeds, getattr(args, "threads", None))
    own_run = getattr(cli, "run_cli", None)
    if own_run is not None and not events:
        return int(own_run(args, config))
    out_dir = prepare_out_dir(args.out, args.force)
    stop = threading.Event()
    stop_on_sigterm(stop)
    stream = EventStream(stop) if events else None
    progress = ProgressBar(getattr(config, "steps", None), enabled=not settings.get("no_progress"))

    def on_event(event: Event) -> None:
        progress(event)
        if stream is not None:
            stream(event)

    try:
        summary = run_experiment(
            EXPERIMENTS[kind], config, out_dir, stop=stop, on_event=on_event, name=getattr(args, "name", None)
        )
    finally:
        progress.close()
    if stream is not None:
        stream.send(Finished({"out": str(out_dir), **summary}))
    else:
        print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str))
        say_where(out_dir)
    return EXIT_INTERRUPTED if summary.get("state") == RunState.STOPPED else 0


def with_data_folder(config: Any) -> Any:
    """``config`` with the data folder a command line reads when it names none
    (:func:`engine.core.paths.command_data_dir`: $EMBEDLAB_DATA_DIR, else ``../shared/data``), recorded in
    its ``config.json``; a config without a ``data_dir`` knob, or one that names a folder, as it is."""
    if not dataclasses.is_dataclass(config) or getattr(config, "data_dir", "set") not in (None, ""):
        return config
    folder = paths.command_data_dir()
    return config if folder is None else dataclasses.replace(config, data_dir=folder)


def one_line_warnings() -> None:
    """The lab's own warnings (an IsoScore capped by few samples) as one ``note:`` line each on stderr,
    each text once: not Python's file name and source line, repeated at every evaluation."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        if category.__module__.startswith("engine."):  # (by name: importing them would import torch)
            print(f"note: {message}", file=file or sys.stderr, flush=True)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    warnings.filterwarnings("once", module="engine")


def main(argv: list[str] | None = None) -> int:
    try:  # every setting before any work: one line, not a traceback from wherever it is first read
        check_all()
    except ConfigError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        return EXIT_USER_ERROR
    keep_freed_memory()  # the same allocator policy in every training process (engine/compute/allocator.py)
    one_line_warnings()
    parser = build_parser()
    args = parser.parse_args(argv)
    code = _main(args)
    if getattr(args, "events", False):
        # The app waits for this process to end: skip the interpreter's final garbage collection, which
        # takes seconds after torch/transformers were loaded. Every file of the run is closed already.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _main(args: argparse.Namespace) -> int:
    try:
        if args.command == "settings":
            return print_settings(args.markdown, args.knobs)
        if args.command == "group":
            from engine.groups.cli import run as show_group

            return show_group(args)
        if args.command == "sweep":
            from engine.sweep.cli import run as sweep

            return sweep(args)
        if args.command == "replay":
            from engine.replay.cli import run as replay

            return replay(args)
        if args.command == "claims":
            from engine.claims.cli import run as claims

            return claims(args)
        if args.command == "results":
            from engine.claims.results import run as results

            return results(args)
        if args.command == "lessons":
            from engine.lessons.check import run_cli as lessons_check

            return lessons_check(args)
        return execute(args.command, args)
    except RunFailed as err:  # the run's own failure, recorded in its folder
        print(f"error: {one_line(err)}", file=sys.stderr)
        return EXIT_FAILURE
    except EmbedlabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted: the run folder keeps every completed step", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - one line, never a traceback
        print(f"error: {one_line(err)}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def serve_spare(ready_fd: int | None = None) -> None:
    """The program of a warm spare child (:class:`engine.jobs.spare.SparePool`): warm up, then run the job
    that arrives on stdin with :func:`main` (:func:`engine.jobs.spare_entry.serve_one`)."""
    from engine.jobs.spare_entry import serve_one

    serve_one(main, ready_fd)
