"""The run plumbing shared by every experiment's command line (:mod:`engine.cli` and the experiments' own
``run_cli``, e.g. :mod:`engine.simcse.cli`): exit codes, the run folder, the progress bar, the ``--events``
stream, ``--threads`` and SIGTERM. It imports no experiment, so both sides import it without a circle.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from engine import events, paths
from engine.errors import ConfigError
from engine.events import Event, Progress, Row

EXIT_USER_ERROR, EXIT_FAILURE, EXIT_INTERRUPTED = 2, 1, 130


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


def set_threads(threads: int | None) -> None:
    """``--threads N``: torch's intra-op threads (e.g. one core left to a web UI on a small machine)."""
    if threads is None:
        return
    if threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {threads}")
    import torch

    torch.set_num_threads(threads)


def stop_on_sigterm(stop: threading.Event) -> None:
    """SIGTERM ends the run cleanly between steps (SIGKILL cannot be caught: the log is already safe)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())


# ---------------------------------------------------------------- --seeds: a group of runs (engine.groups)
def run_seed_group(kind: str, config: object, out: str, seeds_text: str, threads: int | None = None) -> int:
    """``python -m engine KIND --seeds 0,1,2 --out GROUP``: one run per seed into a new group (the other
    settings from ``config``), one by one in this process; prints the summary as mean ± std."""
    from dataclasses import asdict

    from engine import groups
    from engine.flags import parse_seeds

    seeds = parse_seeds(seeds_text)
    if getattr(config, "save_encoder", None):
        raise ConfigError("--save-encoder: the runs of a group would overwrite one encoder; leave it out")
    group = groups.create_group(groups.group_path(out), kind, asdict(config), {"seed": seeds})
    print(f"group {group.path}: {len(group.members)} runs", file=sys.stderr, flush=True)
    group = groups.run_group(group, groups.LocalExecutor(threads=threads))
    print(groups.format_summary(groups.summarise(group, write=False)))
    failed = [m for m in group.members if m.status == "failed"]
    for member in failed:
        print(f"failed: {member.id}: {member.error}", file=sys.stderr)
    return EXIT_FAILURE if failed else 0
