"""``python -m engine results``: the tables of docs/results.md (and of any Markdown file given), written from
the run folders and groups they summarise, each with its command and date.

A table lives between two markers on lines of their own; the opening one names what makes it::

    <!-- results:claims --seeds 5 --out cache/groups -->
    (written by the command: the claims table of those groups, its command and date)
    <!-- /results:claims -->

    <!-- results:runs measures=isoscore,silhouette corr cache/runs/rt-polarity cache/runs/snli -->
    (one row per run folder: each measure start → end, r and ρ with ``corr``, the run's date)
    <!-- /results:runs -->

    <!-- results:script scripts/run_tables.py spectrum cache/runs/geo-snli-exact -->
    (what that script prints on its standard output, with the command and date)
    <!-- /results:script -->

Only the text between the markers is replaced; the prose around them stays byte for byte. ``claims`` takes
``python -m engine claims``'s own flags and reads its groups (:func:`engine.claims.run.read_setup`, nothing
is trained); ``runs`` takes run folders; ``script`` runs a Python script of the repository's ``scripts/`` or
``benchmarks/`` (no shell; a script that exits non-zero leaves its table, its last line of stderr the reason),
for a table of another shape (a comparison of runs, a spectrum, a check on synthetic data). Relative paths
are taken from the repository root (``--root``). A folder or group that is missing or unfinished is named on
stderr, one line each, and its table is left as it was (exit 1); nothing here needs a GPU or trains anything
(a script block runs what its script runs: those of docs/results.md read run folders or synthetic data).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.claims import shipped as shipping
from engine.claims.folder_check import DamagedFolder
from engine.claims.shipped import check_named, folders_of, run_folder, runs_named, ship, spectra_of
from engine.command.signals import reports_stop
from engine.core.atomic import line_ending, write_text_atomic
from engine.core.errors import ConfigError, EmbedlabError
from engine.core.setting_checks import check_all
from engine.runlog.states import RunState

OPEN = re.compile(r"^<!-- results:(?P<kind>[a-z][a-z-]*)(?P<args>(?: [^\n]*?)?) -->$", re.M)
CLOSE = "<!-- /results:{kind} -->"
ANY_MARKER = re.compile(r"^<!-- /?results:", re.M)
#: α-ReQ as its paper measures it (issue 36) since this commit's date: a run that ended before measured the
#: old estimator (an unweighted fit to every rank), whose figures move with the number of sentences
ALPHA_REQ_SINCE = dt.datetime(2026, 11, 27, 14, 23, 48, tzinfo=dt.UTC).timestamp()
DEFAULT_FILES = ("docs/results.md",)


class Missing(EmbedlabError):
    """A run folder or group that a table needs is missing, unfinished or stale: one line naming it."""


@dataclass(frozen=True)
class Block:
    """One marked table: its kind, its arguments, and where its body lies in the text."""

    kind: str
    args: str
    start: int  # first character of the body (after the opening marker's line)
    end: int  # first character of the closing marker


def blocks(text: str) -> list[Block]:
    """The marked blocks of ``text``, in order. An opening marker without its closing one, a closing marker
    without an opening one, or nested blocks raise :class:`ConfigError` naming the line."""
    found: list[Block] = []
    position = 0
    opened = list(OPEN.finditer(text))
    for match in opened:
        if match.start() < position:
            raise ConfigError(f"results marker nested in another block at line {_line(text, match.start())}")
        close = CLOSE.format(kind=match["kind"])
        end = text.find(f"\n{close}", match.end())
        if end < 0 or (end + 1 + len(close) < len(text) and text[end + 1 + len(close)] != "\n"):
            raise ConfigError(f"results:{match['kind']} at line {_line(text, match.start())} is never closed")
        inner = text[match.end() : end]
        if ANY_MARKER.search(inner):
            raise ConfigError(f"results marker nested in another block at line {_line(text, match.start())}")
        found.append(Block(match["kind"], match["args"].strip(), min(match.end() + 1, end + 1), end + 1))
        position = end + 1 + len(close)
    markers = len(ANY_MARKER.findall(text))
    if markers != 2 * len(found):
        raise ConfigError("a results marker is not on a line of its own, or a closing one has no opening one")
    return found


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def replace_blocks(text: str, render: Callable[[str, str], str]) -> tuple[str, list[str]]:
    """``text`` with each block's body replaced by ``render(kind, args)`` (a body ends with a newline), and
    the one-line reasons of the blocks left as they were (``render`` raised :class:`Missing`)."""
    out, problems, last = [], [], 0
    for block in blocks(text):
        try:
            body = render(block.kind, block.args).rstrip("\n") + "\n"
        except (Missing, DamagedFolder) as err:
            problems.append(f"results:{block.kind}: {err}")
            continue
        out += [text[last : block.start], body]
        last = block.end
    out.append(text[last:])
    return "".join(out), problems


def day(stamp: float) -> str:
    """The UTC day of a time stamp, as the tables print it."""
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d")


def _dates(stamps: Iterable[float]) -> str:
    days = sorted({day(s) for s in stamps})
    return "—" if not days else days[0] if len(days) == 1 else f"{days[0]} – {days[-1]}"


def _resolve(path: str, root: Path) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else root / candidate


def ended_at(folder: Path) -> float:
    """When the run in ``folder`` finished (its status.json); :class:`Missing` when it did not."""
    try:
        status = json.loads((folder / "status.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Missing(f"run folder {folder} is missing (no status.json)") from None
    except (OSError, ValueError) as err:
        raise Missing(f"run folder {folder}: status.json is unreadable ({err})") from None
    if not isinstance(status, dict) or status.get("state") != RunState.FINISHED:
        state = status.get("state") if isinstance(status, dict) else "damaged"
        raise Missing(f"run folder {folder} holds no finished run (state {state})")
    ended = status.get("ended")
    return float(ended) if isinstance(ended, (int, float)) else (folder / "status.json").stat().st_mtime


def render_claims(args: str, root: Path, today: str) -> str:
    """The claims table of the groups that ``python -m engine claims ARGS`` made, read (not run)."""
    from engine import groups
    from engine.claims import cli as claims_cli
    from engine.claims.run import MissingRuns, group_name, read_setup
    from engine.claims.setups import by_keys
    from engine.claims.shipped import claims_groups, claims_out, claims_request
    from engine.claims.table import markdown, rules
    from engine.core.flags import parse_seeds

    namespace = claims_request(args)
    given = namespace.out  # named as written: the same text whether read here or from a shipped copy
    if given is not None:
        relative = not Path(given).expanduser().is_absolute()
        namespace.out = str(claims_out(given, root, claims_groups(args)) if relative else Path(given))
    seeds = parse_seeds(namespace.seeds)
    setups = by_keys([k.strip() for k in namespace.setups.split(",")] if namespace.setups else None)
    budget = claims_cli.budget_of(namespace)
    out = claims_cli.out_of(namespace)
    rows, stamps = [], []
    for setup in setups:
        try:
            rows.append(read_setup(setup, seeds, out, short=namespace.short, budget=budget))
        except MissingRuns as err:
            raise Missing(str(err)) from None
        folder = out / group_name(setup, short=namespace.short, budget=budget)
        stamps += [ended_at(run) for run in groups.member_dirs(groups.read_group(folder)).values()]
    shown = f"python -m engine claims {args}".strip()
    return "\n".join(
        [
            markdown(rows),
            "",
            f"Command: `{shown}`; runs in `{given or out}`, made {_dates(stamps)}; table written by "
            f"`python -m engine results` on {today}. {' '.join(rules())}",
        ]
    )


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _series(folder: Path, measure: str) -> list[float]:
    """The logged values of ``measure`` in ``folder``'s metrics.csv (empty cells skipped; an old folder's
    column under an earlier name of the measure read as it, as every reader of run folders does)."""
    from engine.runlog.reading import read_metrics

    try:
        frame = read_metrics(folder)
    except (OSError, EmbedlabError) as err:
        raise Missing(f"run folder {folder}: metrics.csv is unreadable ({err})") from None
    if measure not in frame.columns:
        return []
    values = [_number(value) for value in frame[measure].tolist()]
    return [v for v in values if v is not None]


def fmt(value: float | None, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits with a true minus sign; "—" when there is none."""
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}g}".replace("-", "−")


def render_runs(args: str, root: Path, today: str) -> str:
    """One row per run folder: steps logged, each measure's first → last logged value, IsoScore's r and ρ
    against the silhouette with ``corr`` (summary.json), the date it finished."""
    words = shlex.split(args)
    measures = next((w.split("=", 1)[1].split(",") for w in words if w.startswith("measures=")), [])
    corr = "corr" in words
    folders = runs_named(args)
    if not folders or not measures:
        raise ConfigError(f"results:runs needs measures=a,b and run folders, got {args!r}")
    header = ["run", "steps logged", *(f"{m} start → end" for m in measures)]
    header += ["Pearson r", "Spearman ρ"] if corr else []
    lines = ["| " + " | ".join([*header, "finished"]) + " |", "|" + "---|" * (len(header) + 1)]
    for name in folders:
        folder = run_folder(name, root)  # cache/..., else its copy shipped in docs/run-folders
        ended = ended_at(folder)
        if "alpha_req" in measures and ended < ALPHA_REQ_SINCE:
            raise Missing(
                f"run folder {folder}: its alpha_req is from the old estimator (finished {day(ended)}, "
                f"before {day(ALPHA_REQ_SINCE)}): run it again"
            )
        series = {m: _series(folder, m) for m in measures}
        steps = len(_series(folder, "step"))
        cells = [f"`{name}`", str(steps)]
        cells += [f"{fmt(s[0])} → {fmt(s[-1])}" if s else "—" for s in series.values()]
        if corr:
            summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
            cells += [fmt(_number(summary.get("pearson_r"))), fmt(_number(summary.get("spearman_rho")))]
        lines.append("| " + " | ".join([*cells, day(ended)]) + " |")
    lines += [
        "",
        "Each run's command: `python -m engine KIND --config-json RUN/config.json --out RUN` (its kind and "
        f"settings are in RUN/config.json); table written by `python -m engine results` on {today}.",
    ]
    return "\n".join(lines)


def render_script(args: str, root: Path, today: str) -> str:
    """What ``python SCRIPT ARGS`` prints (run in ``root``, no shell, bounded in time, ended with the
    command: :mod:`engine.claims.script_block`), then its command and date. The script must be a ``.py``
    file of ``root``'s ``scripts/`` or ``benchmarks/``; one that exits non-zero, runs too long or prints
    a marker is :class:`Missing`, with the reason (a script's last line of stderr names the run it lacks)."""
    from engine.claims.script_block import ScriptFailed
    from engine.claims.script_block import render_script as render

    try:
        return render(args, root, today, ANY_MARKER)
    except ScriptFailed as err:
        raise Missing(str(err)) from None


RENDERERS: dict[str, Callable[[str, Path, str], str]] = {
    "claims": render_claims,
    "runs": render_runs,
    "script": render_script,
}


def render(kind: str, args: str, root: Path, today: str) -> str:
    """The body of one block (:data:`RENDERERS`); an unknown kind is a :class:`ConfigError`."""
    if kind not in RENDERERS:
        raise ConfigError(f"results:{kind}: unknown table kind; use one of {', '.join(RENDERERS)}")
    check_named(shipping.folders_checked(kind, args, root), root)  # damaged: DamagedFolder, table kept
    return RENDERERS[kind](args, root, today)


def add_parser(commands: argparse._SubParsersAction) -> None:
    """The ``results`` subcommand."""
    from engine.core import settings

    sub = commands.add_parser(
        "results",
        help="write the tables of docs/results.md from their run folders and groups",
        description="Rewrites each table between <!-- results:KIND ARGS --> and <!-- /results:KIND --> in "
        "the files (default docs/results.md) from the run folders and groups it names, with its command "
        "and date; the prose around the markers stays. A missing or unfinished run folder or group is "
        "named, and its table kept (exit 1). Needs no GPU and trains nothing.",
    )
    sub.add_argument("files", nargs="*", help="Markdown files (default: docs/results.md)")
    sub.add_argument("--root", default=str(settings.REPO_ROOT), help="where relative paths start (the repo)")
    sub.add_argument("--check", action="store_true", help="write nothing; exit 1 when a table would change")
    sub.add_argument(
        "--ship",
        action="store_true",
        help="copy the files the runs tables read (config, status, summary, metrics) of the run folders they "
        "name into docs/run-folders, where a fresh clone finds them; write no table",
    )


@reports_stop("results", "each document is as it was or rewritten whole; a script running was ended")
def run(args: argparse.Namespace) -> int:
    """Rewrite the files' tables; 0 when every table was written (or, with ``--check``, is up to date).
    Ctrl-C or SIGTERM ends a script block's script with the command (:mod:`engine.claims.script_block`)."""
    root = Path(args.root)
    if getattr(args, "ship", False):
        return _ship(args.files or DEFAULT_FILES, root)
    today = dt.date.today().isoformat()
    problems: list[str] = []
    changed: list[str] = []
    for name in args.files or DEFAULT_FILES:
        path = _resolve(name, root)
        raw = _read_doc(path)
        ending = line_ending(raw)
        text = raw.replace("\r\n", "\n") if ending == "\r\n" else raw
        new, missing = replace_blocks(
            text, lambda kind, a, path=path: relinked(render(kind, a, root, today), path, root)
        )
        problems += [f"{path}: {line}" for line in missing]
        if _without_dates(new) != _without_dates(text):
            changed.append(str(path))
            if not args.check:
                _write_whole(path, new.replace("\n", ending) if ending != "\n" else new)
    for line in problems:
        print(f"missing: {line}", file=sys.stderr)
    verb = "would change" if args.check else "rewrote"
    print(f"{verb}: {', '.join(changed) or 'nothing'}; {len(problems)} table(s) left as they were")
    return 1 if problems or (args.check and changed) else 0


def _read_doc(path: Path) -> str:
    """A document as it is on disk (its line endings kept: Path.read_text would turn CRLF into LF); one
    line when it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None


def _ship(files: Sequence[str], root: Path) -> int:
    """``--ship``: the run folders of the files' ``results:runs`` and ``results:script`` tables into
    docs/run-folders (:mod:`engine.claims.shipped`); 0 when every one was shipped, else 1 with one line per
    folder left."""
    named, spectra, claims = [], [], []
    for name in files:
        found = blocks(_read_doc(_resolve(name, root)))
        named += [folder for block in found for folder in folders_of(block.kind, block.args)]
        spectra += [folder for block in found for folder in spectra_of(block.kind, block.args)]
        claims += [block.args for block in found if block.kind == "claims"]
    shipped, skipped = ship(named, root, spectra)
    for args in dict.fromkeys(claims):  # a claims table's groups and their runs (issue 56)
        done, left = shipping.ship_claims(args, root)
        shipped, skipped = shipped + done, skipped + left
    for line in skipped:
        print(f"not shipped: {line}", file=sys.stderr)
    print(f"shipped {len(shipped)} run folder(s) into docs/run-folders; {len(skipped)} left out")
    return 1 if skipped else 0


def _write_whole(path: Path, text: str) -> None:
    """``text`` over ``path`` whole or not at all (issue 47: written in place, a full disk cut a document
    mid-line); a write that fails leaves the file as it was and is one line."""
    try:
        write_text_atomic(path, text)
    except OSError as err:
        raise ConfigError(f"cannot write {path}: {err.strerror or err}; it is left as it was") from None


def relinked(table: str, target: Path, root: Path) -> str:
    """``table`` with its links into ``docs/paper.md`` (written relative to ``docs/``) made relative to the
    file it goes into (``README.md`` at the root: ``docs/paper.md``), and ``root``'s own path dropped from
    the folders it names."""
    paper = os.path.relpath(root / "docs" / "paper.md", target.parent).replace(os.sep, "/")
    return table.replace("](paper.md#", f"]({paper}#").replace(f"`{root}/", "`")


def _without_dates(text: str) -> str:
    """``text`` without the day the tables were written (a rerun on another day changes nothing else)."""
    return re.sub(r"written by `python -m engine results` on \d{4}-\d{2}-\d{2}", "", text)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.claims.results``: the same as ``python -m engine results``."""
    parser = argparse.ArgumentParser(prog="python -m engine.claims.results")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["results", *(sys.argv[1:] if argv is None else argv)])
    try:
        check_all()  # every setting first: one line, before any work (issue 47)
        return run(args)
    except EmbedlabError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
