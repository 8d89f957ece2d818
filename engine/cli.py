"""Command line: ``python -m engine probe|simcse ... --out DIR``, one subcommand per registered experiment;
``settings`` lists the settings, ``replay RUN --out lesson.html`` makes a lesson to take home (:mod:`engine.replay`).

Errors a user can cause print one line on stderr and exit 2; any other failure prints one line and exits 1;
Ctrl-C stops the run between steps (exit 130). Nothing is ever lost: rows are on disk as they are produced.

For the app's job runner (:mod:`engine.jobs`): ``--config-json`` takes the settings as the config dataclass's
fields in JSON, and ``--events`` prints the run's liveness on stdout (see :class:`EventStream`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from engine import events, paths, settings
from engine.errors import ConfigError, EmbedlabError, RunFailed, one_line
from engine.events import Event, Finished, Progress, Row
from engine.runner import EXPERIMENTS, run_experiment

EXIT_USER_ERROR, EXIT_FAILURE, EXIT_INTERRUPTED = 2, 1, 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="embedlab experiments, headless")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for kind, experiment in EXPERIMENTS.items():
        if not experiment.cli:
            continue
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
        _cli_module(kind).add_arguments(sub)
    listing = commands.add_parser(
        "settings",
        help="list every setting and its environment variable",
        description="Every knob of the lab, its environment variable, type and default.",
    )
    listing.add_argument("--markdown", action="store_true", help="print a Markdown table (for the README)")
    from engine.replay import cli as replay_cli

    replay = commands.add_parser(
        "replay",
        help="a run as a lesson to take home: one offline HTML file, a GIF",
        description="A run (or several) as one self-contained HTML file that works "
        "offline (curves, relation figure, UMAP film, settings, the lesson's "
        "texts), and its UMAP film as an animated GIF.",
    )
    replay_cli.add_arguments(replay)
    return parser


def print_settings(markdown: bool) -> int:
    """``python -m engine settings``: the table of :mod:`engine.settings`."""
    if markdown:
        print(settings.markdown_table())
        return 0
    rows = settings.table()
    widths = {key: max(len(key), *(len(row[key]) for row in rows)) for key in ("variable", "type", "default")}
    for row in [{key: key for key in rows[0]}, *rows]:
        print("  ".join(row[key].ljust(widths[key]) for key in widths) + "  " + row["meaning"])
    return 0


def _cli_module(kind: str) -> Any:
    return importlib.import_module(EXPERIMENTS[kind].cli)


def prepare_out_dir(out: str, force: bool) -> Path:
    """The run folder; an existing run is never overwritten silently."""
    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    if (path / "metrics.csv").exists() and not force:
        raise ConfigError(
            f"--out {out}: already holds a run (metrics.csv); choose another folder or pass --force"
        )
    try:  # with --force the old run stays until the new one is swapped in whole (engine.runlog.swap)
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        refusal = paths.not_writable(err, Path(err.filename or path))
        if refusal is None:
            raise
        raise ConfigError(f"--out {out}: {refusal}") from None
    return path


class ProgressBar:
    """A stderr progress bar over steps (tqdm), fed by the runner's events."""

    def __init__(self, total: int | None, enabled: bool = True):
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            file=sys.stderr,
            unit="step",
            disable=not enabled,
            mininterval=0.5,
            dynamic_ncols=True,
        )
        self.last_step = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.bar.set_description_str(event.phase)
        elif isinstance(event, Row):
            self.bar.update(max(0, event.step - self.last_step))
            self.last_step = event.step
            shown = {
                k: event.get(k)
                for k in ("loss", "isoscore", "silhouette", "sts_spearman")
                if event.get(k) is not None
            }
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in shown.items()}, refresh=False)

    def close(self) -> None:
        self.bar.close()


class EventStream:
    """``--events``: liveness for :mod:`engine.jobs`, one :mod:`engine.events` JSON line per event, flushed.

    :class:`~engine.events.Progress` as yielded, a :class:`~engine.events.Tick` per row (the row and its
    snapshot are on disk already: the server reads them from the run folder) and
    :class:`~engine.events.Finished` at the end. The stream owns the original stdout; anything else printed
    goes to stderr. When the reader is gone (broken pipe) or the parent process ended, ``stop`` is set: the
    run ends cleanly after its step.
    """

    def __init__(self, stop: threading.Event):
        self.stop = stop
        self.out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the stream
        self._parent = os.getppid()
        threading.Thread(target=self._watch_parent, name="events-parent", daemon=True).start()

    def _watch_parent(self) -> None:
        while not self.stop.wait(0.5):
            if os.getppid() != self._parent:
                self.stop.set()

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.send(event)
        elif isinstance(event, Row):
            self.send(events.tick_of(event))

    def send(self, event: events.WireEvent) -> None:
        try:
            self.out.write(events.to_line(event) + "\n")
            self.out.flush()
        except (OSError, ValueError):  # the reader is gone: end the run cleanly
            self.stop.set()


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
    return EXPERIMENTS[kind].make_config(**values)


def set_threads(threads: int | None) -> None:
    """``--threads N``: torch's intra-op threads (e.g. one core left to a web UI on a small machine)."""
    if threads is None:
        return
    if threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {threads}")
    import torch

    torch.set_num_threads(threads)


def execute(kind: str, args: argparse.Namespace) -> int:
    set_threads(getattr(args, "threads", None))
    cli = _cli_module(kind)
    config_json = getattr(args, "config_json", None)
    config = load_config_json(kind, config_json) if config_json else cli.config_from_args(args)
    events = bool(getattr(args, "events", False))
    if hasattr(cli, "run_cli") and not events:
        return int(cli.run_cli(args, config))
    out_dir = prepare_out_dir(args.out, args.force)
    stop = threading.Event()
    _stop_on_sigterm(stop)
    stream = EventStream(stop) if events else None
    progress = ProgressBar(getattr(config, "steps", None), enabled=not settings.get("no_progress"))

    def on_event(event: Event) -> None:
        progress(event)
        if stream is not None:
            stream(event)

    try:
        summary = run_experiment(kind, config, out_dir, stop=stop, on_event=on_event)
    finally:
        progress.close()
    if stream is not None:
        stream.send(Finished({"out": str(out_dir), **summary}))
    else:
        print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str))
    return EXIT_INTERRUPTED if summary.get("state") == "stopped" else 0


def _stop_on_sigterm(stop: threading.Event) -> None:
    """SIGTERM ends the run cleanly between steps (SIGKILL cannot be caught: the log is already safe)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())


def main(argv: list[str] | None = None) -> int:
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
            return print_settings(args.markdown)
        if args.command == "replay":
            from engine.replay.cli import run as replay

            return replay(args)
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
