"""Command line: ``python -m engine probe|simcse ... --out DIR``, one subcommand per registered experiment.

Errors a user can cause print one line on stderr and exit 2; any other failure prints one line and exits 1;
Ctrl-C stops the run between steps (exit 130). Nothing is ever lost: rows are on disk as they are produced.
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

from engine.errors import ConfigError, EmbedlabError, one_line
from engine.runner import EXPERIMENTS, run_experiment

EXIT_USER_ERROR, EXIT_FAILURE, EXIT_INTERRUPTED = 2, 1, 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="embedlab experiments, headless")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for kind, experiment in EXPERIMENTS.items():
        if not experiment.cli:
            continue
        sub = commands.add_parser(kind, help=experiment.title, description=experiment.title)
        sub.add_argument("--out", required=True, help="run folder to write (metrics.csv, config.json, summary.json)")
        sub.add_argument("--force", action="store_true", help="overwrite a run folder that already holds a run")
        _cli_module(kind).add_arguments(sub)
    return parser


def _cli_module(kind: str) -> Any:
    return importlib.import_module(EXPERIMENTS[kind].cli)


def prepare_out_dir(out: str, force: bool) -> Path:
    """The run folder; an existing run is never overwritten silently."""
    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    if (path / "metrics.csv").exists() and not force:
        raise ConfigError(f"--out {out}: already holds a run (metrics.csv); choose another folder or pass --force")
    path.mkdir(parents=True, exist_ok=True)
    return path


class ProgressBar:
    """A stderr progress bar over steps (tqdm), fed by the runner's events."""

    def __init__(self, total: int | None, enabled: bool = True):
        from tqdm import tqdm

        self.bar = tqdm(total=total, file=sys.stderr, unit="step", disable=not enabled, mininterval=0.5,
                        dynamic_ncols=True)
        self.last_step = 0

    def __call__(self, event: dict[str, Any]) -> None:
        if "phase" in event:
            self.bar.set_description_str(str(event["phase"]))
        if "step" in event:
            step = int(event["step"])
            self.bar.update(max(0, step - self.last_step))
            self.last_step = step
            shown = {k: event[k] for k in ("loss", "isoscore", "silhouette", "sts_spearman") if event.get(k) is not None}
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in shown.items()}, refresh=False)

    def close(self) -> None:
        self.bar.close()


def execute(kind: str, args: argparse.Namespace) -> int:
    cli = _cli_module(kind)
    config = cli.config_from_args(args)
    if hasattr(cli, "run_cli"):
        return int(cli.run_cli(args, config))
    out_dir = prepare_out_dir(args.out, args.force)
    stop = threading.Event()
    _stop_on_sigterm(stop)
    progress = ProgressBar(getattr(config, "steps", None), enabled=os.environ.get("EMBEDLAB_NO_PROGRESS") != "1")
    try:
        summary = run_experiment(kind, config, out_dir, stop=stop, on_event=progress)
    finally:
        progress.close()
    print(json.dumps({"out": str(out_dir), **summary}, indent=2, default=str))
    return EXIT_INTERRUPTED if summary.get("state") == "stopped" else 0


def _stop_on_sigterm(stop: threading.Event) -> None:
    """SIGTERM ends the run cleanly between steps (SIGKILL cannot be caught: the log is already safe)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return execute(args.command, args)
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
