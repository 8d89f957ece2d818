"""Run folders shipped with the repository (issue 48, item 7): the tables of docs/results.md are written
from run folders under ``cache/``, which a fresh clone does not have. ``python -m engine results --ship``
copies the few files a table reads (config.json, status.json, summary.json and metrics.csv, and spectrum.csv
for a ``spectrum`` table's runs: no snapshots or points) of every run folder a ``results:runs`` table or a
``results:script`` block's arguments name (its words under ``cache/``) and this machine holds into
:data:`SHIPPED`, under the same relative path; ``python -m engine results`` and scripts/run_tables.py read a
folder there when ``cache/`` lacks it, so ``results --check`` regenerates those tables on a fresh clone.

The copies are plain files, not compressed: a SimCSE run's four files are about 10 kB, and the whole
folder is kept under :data:`BUDGET` (a ship that would pass it writes nothing and says so).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterable
from pathlib import Path

from engine.claims.folder_check import MANIFEST, DamagedFolder, check_folder, write_manifest
from engine.core.atomic import write_bytes_atomic
from engine.core.errors import ConfigError
from engine.core.paths import no_link
from engine.runlog import run_state
from engine.runlog.states import RunState

#: where the shipped run folders live, relative to the repository root
SHIPPED = Path("docs") / "run-folders"
#: the files of a run folder that a table reads (each copied where the run has it)
FILES = ("config.json", "status.json", "summary.json", "metrics.csv")
#: the covariance spectra, read only by scripts/run_tables.py's ``spectrum`` table (up to ~0.8 MB a run)
SPECTRUM = "spectrum.csv"
#: the folder every shipped run folder's name starts with
CACHE = "cache"
#: the most the shipped folders may hold in all (bytes)
BUDGET = 10 * 1024 * 1024


def run_folder(name: str, root: Path) -> Path:
    """The run folder a table names: ``root / name`` (or ``name`` itself when absolute), else its shipped
    copy where only that one exists."""
    given = Path(name).expanduser()
    if given.is_absolute():
        return given
    local = root / given
    shipped = root / SHIPPED / given
    if not (local / "status.json").is_file() and (shipped / "status.json").is_file():
        return shipped
    return local


def check_named(names: Iterable[str], root: Path) -> None:
    """Each run folder a table reads (:func:`run_folder`), shipped or not, checked against itself, and a
    shipped copy against its manifest (:func:`~engine.claims.folder_check.check_folder`); the first damaged
    one is :class:`~engine.claims.folder_check.DamagedFolder`. A missing folder is left to the table."""
    for name in names:
        folder = run_folder(name, root)
        if (folder / "status.json").is_file():
            check_folder(folder, shipped=folder.is_relative_to(root / SHIPPED))


def runs_named(args: str) -> list[str]:
    """The run folders of a ``results:runs`` block's arguments (its measures and ``corr`` left out)."""
    return [w for w in shlex.split(args) if not w.startswith("measures=") and w != "corr"]


def script_runs(args: str) -> list[str]:
    """The run folders of a ``results:script`` block's arguments: its relative words under ``cache/``."""
    return [w for w in shlex.split(args) if Path(w).parts[:1] == (CACHE,) and len(Path(w).parts) > 1]


def folders_of(kind: str, args: str) -> list[str]:
    """The run folders a block of ``kind`` ("runs" or "script"; none for another kind) names."""
    if kind == "runs":
        return runs_named(args)
    return script_runs(args) if kind == "script" else []


def spectra_of(kind: str, args: str) -> list[str]:
    """The run folders whose spectrum.csv a block reads: those of a ``script`` block's ``spectrum`` table."""
    words = shlex.split(args)
    return script_runs(args) if kind == "script" and words[1:2] == ["spectrum"] else []


def ship(names: Iterable[str], root: Path, spectra: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """Copy the :data:`FILES` of each finished run folder ``names`` (relative to ``root``, under ``cache/``)
    holds here, and the :data:`SPECTRUM` of those also in ``spectra``, into :data:`SHIPPED`; (shipped,
    skipped with why). Nothing is written when the copies would pass :data:`BUDGET`."""
    chosen, skipped, copies, spectra = [], [], [], set(spectra)
    for name in dict.fromkeys([*names, *spectra]):
        source = root / name
        if Path(name).is_absolute() or ".." in Path(name).parts:
            skipped.append(f"{name}: not a path inside the repository")
        elif not _finished(source):
            if _finished(root / SHIPPED / name):
                copies.append(name)
            else:
                skipped.append(f"{name}: no finished run here")
        else:
            chosen.append(name)
    target = root / SHIPPED
    kept = (
        {p.relative_to(target): p.stat().st_size for p in target.rglob("*") if p.is_file()}
        if target.exists()
        else {}
    )
    new = {
        Path(name) / file: (root / name / file).stat().st_size
        for name in chosen
        for file in ((*FILES, SPECTRUM) if name in spectra else FILES)
        if (root / name / file).is_file()
    }
    total = sum({**kept, **new}.values())
    if total > BUDGET:
        raise ConfigError(
            f"results --ship: the shipped run folders would hold {total:,} bytes, over {BUDGET:,}"
        )
    for relative in new:  # every destination checked before anything is written
        no_link(root, target / relative, what="results --ship")
    for relative in new:
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        no_link(root, target / relative, what="results --ship")
        write_bytes_atomic(target / relative, (root / relative).read_bytes())
    for name in chosen:
        write_manifest(target / name, _held(target / name))
    sealed = seal_copies(copies, target)
    damaged = [f"{n}: no run here, and its shipped copy is damaged" for n in copies if n not in sealed]
    return chosen + sealed, skipped + damaged


def seal_copies(names: Iterable[str], target: Path) -> list[str]:
    """The shipped copies (under ``target``) of runs this machine lacks, each given a checksum manifest
    when it has none and holds together (:func:`~engine.claims.folder_check.check_folder`); those whose
    manifest is there or now written. A damaged copy is left unsealed (and so refused by ``results``)."""
    sealed = []
    for name in names:
        folder = target / name
        try:
            if not (folder / MANIFEST).exists():
                check_folder(folder, shipped=False)
                no_link(target, folder / MANIFEST, what="results --ship")
                write_manifest(folder, _held(folder))
            check_folder(folder, shipped=True)
        except DamagedFolder:
            continue
        sealed.append(name)
    return sealed


def _held(folder: Path) -> list[str]:
    """The :data:`FILES` (and :data:`SPECTRUM`) that the shipped copy ``folder`` holds."""
    return [name for name in (*FILES, SPECTRUM) if (folder / name).is_file()]


def _finished(folder: Path) -> bool:
    """Whether ``folder`` holds a finished run (:func:`engine.runlog.run_state`; no status: no)."""
    try:
        return run_state(folder) == RunState.FINISHED
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------- the groups of a ``results:claims`` block
#: the files of a claims group that its table reads besides its members' run folders (issue 56)
GROUP_FILES = ("group.json", "claims.json", "summary.json")


def claims_request(args: str) -> argparse.Namespace:
    """A ``results:claims`` block's arguments as ``python -m engine claims`` parses them; one ConfigError
    line for flags it does not take."""
    from engine.claims import cli as claims_cli

    parser = argparse.ArgumentParser(prog="results:claims", exit_on_error=False)
    claims_cli.add_parser(parser.add_subparsers(dest="command"))
    try:
        return parser.parse_args(["claims", *shlex.split(args)])
    except (argparse.ArgumentError, SystemExit) as err:
        raise ConfigError(f"results:claims: bad flags {args!r} ({err})") from None


def claims_groups(args: str) -> list[str]:
    """The group folders (relative to the block's ``--out``) of a ``results:claims`` block's setups."""
    from engine.claims import cli as claims_cli
    from engine.claims.run import group_name
    from engine.claims.setups import by_keys

    request = claims_request(args)
    setups = by_keys([k.strip() for k in request.setups.split(",")] if request.setups else None)
    budget = claims_cli.budget_of(request)
    return [group_name(setup, short=request.short, budget=budget) for setup in setups]


def claims_out(given: str, root: Path, groups: Iterable[str]) -> Path:
    """Where a claims block's groups are read: ``root / given`` (its ``--out``), else its shipped copy when
    only that one holds every group (a fresh clone: :func:`ship_claims` copied them)."""
    local, shipped = root / given, root / SHIPPED / given
    has_all = lambda folder: all((folder / g / GROUP_FILES[0]).is_file() for g in groups)  # noqa: E731
    return shipped if not has_all(local) and has_all(shipped) else local


def ship_claims(args: str, root: Path) -> tuple[list[str], list[str]]:
    """Copy a ``results:claims`` block's groups into :data:`SHIPPED`: each group's :data:`GROUP_FILES` and
    its members' run folders (:func:`ship`); (shipped, skipped with why). Only a block whose ``--out`` is
    a relative folder under ``cache/`` ships (the default ``<cache>/groups`` does not). On a machine without
    the groups, their shipped copy is kept and its members sealed (:func:`seal_copies`)."""

    out = claims_request(args).out
    if out is None or Path(out).parts[:1] != (CACHE,) or ".." in Path(out).parts:
        return [], [f"results:claims {args}: its --out is not a folder under cache/ (not shipped)"]
    names = claims_groups(args)
    members, skipped = _members_read(out, names, root)
    done, left = ship(members, root)
    if skipped or left:
        return done, skipped + left
    for name in names:
        for file in GROUP_FILES:
            source = root / out / name / file
            if source.is_file():
                target = root / SHIPPED / out / name / file
                target.parent.mkdir(parents=True, exist_ok=True)
                write_bytes_atomic(target, source.read_bytes())
    return [f"{out}/{name}" for name in names] + done, []


def claims_members(args: str, root: Path) -> list[str]:
    """The member run folders (relative to ``root``, as :func:`run_folder` reads them) of a
    ``results:claims`` block's groups, where they are read (:func:`claims_out`); none for a block whose
    ``--out`` is absolute or whose groups are missing (the table then says what is missing)."""

    out = claims_request(args).out
    if out is None or Path(out).expanduser().is_absolute():
        return []
    return _members_read(out, claims_groups(args), root)[0]


def _members_read(out: str, names: Iterable[str], root: Path) -> tuple[list[str], list[str]]:
    """The member run folders (relative to ``root`` or to :data:`SHIPPED`, as :func:`run_folder` reads
    them) of the groups ``names`` under ``out``, read where :func:`claims_out` finds them (this machine's
    groups, else their shipped copy); (members, the groups that could not be read with why)."""
    from engine import groups as run_groups

    names = list(names)
    base = claims_out(out, root, names)
    origin = root if base == root / out else root / SHIPPED
    members, skipped = [], []
    for name in names:
        try:
            group = run_groups.read_group(base / name)
        except run_groups.GroupError as err:
            skipped.append(f"{out}/{name}: {err}")
            continue
        members += [str(folder.relative_to(origin)) for folder in run_groups.member_dirs(group).values()]
    return members, skipped


def folders_checked(kind: str, args: str, root: Path) -> list[str]:
    """Every run folder a block reads, checked before its table (:func:`check_named`): those it names
    (:func:`folders_of`) and, for a ``claims`` block, its groups' members (:func:`claims_members`)."""
    return folders_of(kind, args) + (claims_members(args, root) if kind == "claims" else [])
