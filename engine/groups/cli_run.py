"""The run plumbing shared by every experiment's command line (:mod:`engine.cli` and the experiments' own
``run_cli``, e.g. :mod:`engine.simcse.cli`): exit codes, the run folder, the progress bar, the ``--events``
stream, ``--threads`` and SIGTERM. It imports no experiment, so both sides import it without a circle.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.core import paths
from engine.core.errors import ConfigError
from engine.runlog import events
from engine.runlog.events import Event, Progress, Row
from engine.runlog.states import RunState

EXIT_USER_ERROR, EXIT_FAILURE, EXIT_INTERRUPTED = 2, 1, 130


def engine_command(*args: str) -> list[str]:
    """The command line of ``python -m engine ARGS`` in a fresh interpreter (this one's executable)."""
    return [sys.executable, "-m", "engine", *args]


def prepare_out_dir(out: str, force: bool) -> Path:
    """The run folder: a new one, an empty one, or one holding a run the lab wrote; that run is replaced
    only with ``force`` (or when it ended before a step). A folder with anything else in it, and the
    folders :mod:`engine.runlog.ownership` protects, are refused with one line before anything is touched:
    ``--force`` swaps the whole folder aside and removes it (issue 47: it took a user's files with it)."""
    from engine.runlog.ownership import refusal

    why = refusal(out)
    if why is not None:
        raise ConfigError(why)
    path = Path(out).expanduser()
    if (path / "status.json").exists() and not force and not ended_before_a_step(path):
        raise ConfigError(
            f"--out {out}: already holds a run (status.json); choose another folder or pass --force"
        )
    try:  # with --force the old run stays until the new one is swapped in whole (engine.runlog.swap)
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        refusal_line = paths.not_writable(err, Path(err.filename or path))
        if refusal_line is None:
            raise
        raise ConfigError(f"--out {out}: {refusal_line}") from None
    return path


def say_where(path: Path) -> None:
    """After a run: one written outside the lab's run folder never shows in the app, so say where it went
    and how to put it where the app lists runs (one line on stderr)."""
    runs = paths.cache_location() / "runs"  # named, not made: the run may well be the cache's only user
    if path.resolve().parent == runs:
        return
    print(
        f"note: the run is in {path.resolve()}; the app lists the runs in {runs} "
        f"(--out {runs / path.name} to see it on Compare)",
        file=sys.stderr,
    )


def ended_before_a_step(path: Path) -> bool:
    """Whether the run in ``path`` ended (failed, stopped, or its writer died) before it logged a step: a
    run that failed in its set-up (a bad ``--data-dir``) holds nothing to keep, so running into its folder
    again replaces it whole without ``--force``."""
    from engine.runlog import STATUS, read_json, read_metrics, run_state

    try:
        state, status = run_state(path), read_json(path / STATUS)
        if state in (RunState.RUNNING, RunState.FINISHED) or status.get("last_step") is not None:
            return False
        return read_metrics(path).empty
    except (OSError, ValueError):  # a damaged folder is kept for --force to replace
        return False


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
        if isinstance(event, Progress):  # set-up: in place on a terminal, one plain line each otherwise
            if self.bar.disable or sys.stderr.isatty():
                self.bar.set_description_str(event.phase)
            else:
                print(event.phase, file=sys.stderr, flush=True)
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
    """``--events``: liveness for :mod:`engine.jobs`, one :mod:`engine.runlog.events` JSON line per event,
    flushed.

    :class:`~engine.runlog.events.Progress` as yielded, a :class:`~engine.runlog.events.Tick` per row (the row
    and its snapshot are on disk already: the server reads them from the run folder) and
    :class:`~engine.runlog.events.Finished` at the end. The stream owns the original stdout; anything else
    printed goes to stderr. When the reader is gone (broken pipe) or the parent process ended, ``stop`` is
    set: the run ends cleanly after its step.
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


#: the most torch threads per CPU ``--threads`` may ask for: more only oversubscribes, and torch's pool of
#: 100000 threads died with MemoryError (a segfault, exit 139, under the app; issue 47)
THREADS_PER_CPU = 4


def set_threads(threads: int | None) -> None:
    """``--threads N``: torch's intra-op threads (e.g. one core left to a web UI on a small machine), at
    most :data:`THREADS_PER_CPU` per CPU of this machine."""
    if threads is None:
        return
    most = THREADS_PER_CPU * (os.cpu_count() or 1)
    if not 1 <= threads <= most:
        raise ConfigError(
            f"--threads must be between 1 and {most} ({THREADS_PER_CPU} per CPU here), got {threads}"
        )
    import torch

    torch.set_num_threads(threads)


def stop_on_sigterm(stop: threading.Event) -> None:
    """SIGTERM ends the run cleanly between steps (SIGKILL cannot be caught: the log is already safe), and
    Ctrl-C stops it too where the shell started this process with SIGINT ignored (:func:`catch_sigint`)."""
    if threading.current_thread() is threading.main_thread():
        catch_sigint()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())


def catch_sigint() -> None:
    """A script's background job (``cmd &``) starts with SIGINT ignored, and Python then never raises
    KeyboardInterrupt: install its handler, so Ctrl-C stops the run between steps as in the foreground."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Terminated(KeyboardInterrupt):
    """SIGTERM to a command of several runs (a group, a sweep, the lessons check), raised as Ctrl-C's
    KeyboardInterrupt is: the run in progress ends ``stopped``, recorded, and the command says so."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def interrupting() -> Iterator[None]:
    """For the ``with`` block of a command of several runs: Ctrl-C (:func:`catch_sigint`) and SIGTERM
    (:class:`Terminated`) stop it between two steps of its current run, so nothing is left ``running``. The
    handlers before are back afterwards. Main thread only (elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    catch_sigint()
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        for number, handler in before.items():
            if handler is not None:
                signal.signal(number, handler)


EXIT_TERMINATED = 128 + signal.SIGTERM


def reports_stop(what: str, note: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """For a command of several runs: Ctrl-C or SIGTERM (:func:`interrupting`) ends the run in
    progress ``stopped`` and the command with one line (``<what>: stopped by SIGTERM; <note>``), exit 130
    for Ctrl-C, 143 for SIGTERM."""

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(command)
        def wrapped(*args: object, **kwargs: object) -> int:
            try:
                with interrupting():
                    return command(*args, **kwargs)
            except KeyboardInterrupt as err:
                terminated = isinstance(err, Terminated)
                print(f"{what}: stopped by {'SIGTERM' if terminated else 'Ctrl-C'}; {note}", file=sys.stderr)
                return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED

        return wrapped

    return decorate


# ---------------------------------------------------------------- --seeds: a group of runs (engine.groups)
def run_seed_group(kind: str, config: object, out: str, seeds_text: str, threads: int | None = None) -> int:
    """``python -m engine KIND --seeds 0,1,2 --out GROUP``: one run per seed into a new group (the other
    settings from ``config``), one by one in this process; prints the summary as mean ± std."""
    from dataclasses import asdict

    from engine import groups
    from engine.core.errors import one_line
    from engine.core.experiments import EXPERIMENTS
    from engine.core.flags import parse_seeds

    seeds = parse_seeds(seeds_text)
    if getattr(config, "save_encoder", None):
        raise ConfigError("--save-encoder: the runs of a group would overwrite one encoder; leave it out")
    base = asdict(config)
    for seed in seeds:  # every seed within the experiment's own range before anything runs
        try:
            EXPERIMENTS[kind].make_config(**{**base, "seed": seed})
        except ConfigError as err:
            raise ConfigError(f"--seeds: {one_line(err)}") from None
    folder = groups.group_path(out)
    with interrupting(), groups.holding(folder):
        group = groups.create_group(folder, kind, base, {"seed": seeds})
        print(f"group {group.path}: {len(group.members)} runs", file=sys.stderr, flush=True)
        group = groups.run_group(group, groups.LocalExecutor(threads=threads))
    print(groups.format_summary(groups.summarise(group, write=False)))
    failed = [m for m in group.members if m.status == "failed"]
    for member in failed:
        print(f"failed: {member.id}: {member.error}", file=sys.stderr)
    return EXIT_FAILURE if failed else 0
