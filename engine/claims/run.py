"""Running the claims table: every setup over the seeds, one ordinary probe run folder per seed; the rows.

Each setup is a group of :mod:`engine.groups` (``<out>/claims-<setup key>[-<budget>]/group.json``, a member
per seed, its run folder ``runs/seed-<k>/``, ``summary.json``, and ``claims.json`` with the item count), so
Compare shows it while it runs. The folder's name carries the budget (``claims-i`` at the paper's protocol,
``claims-i-short``, ``claims-i-steps200-every5``): a budgeted table never replaces the paper-length runs. A
member whose folder already holds a finished run with the same settings is read, not run again (the device
and the data folder aside: runs made on a GPU machine are read on a CPU one): a table interrupted half-way
continues where it stopped, and the folder ``<out>`` carried to another machine prints the same table there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.claims.setups import SHORT, ClaimSetup
from engine.claims.table import ClaimRow, claim_row
from engine.core.atomic import write_text_atomic
from engine.core.errors import EmbedlabError
from engine.runlog.states import RunState

log = logging.getLogger(__name__)

#: the settings a claims run may shrink to fit a machine (``--steps``, ``--limit``, ``--metric-every``,
#: ``--sample-size``: the measures on one fixed seeded sample of the items, all items trained)
BUDGET_KNOBS = ("steps", "limit", "metric_every", "sample_size")
#: settings that do not change what a run measures: never a reason to run a finished member again
NOT_IDENTITY = ("data_dir", "device")
#: a group's own record beside group.json: the item count (so that reading needs no data folder)
CLAIMS_FILE = "claims.json"
Reporter = Callable[[str], None]


def group_name(setup: ClaimSetup, *, short: bool = False, budget: dict[str, Any] | None = None) -> str:
    """The setup's group folder: ``claims-<key>`` at its own protocol, else with the budget's tag
    (``claims-i-short``, ``claims-i-steps200-every5-sample2275``)."""
    tags = ["short"] if short else []
    names = {"steps": "steps", "metric_every": "every", "sample_size": "sample", "limit": "limit"}
    tags += [f"{names[name]}{value}" for name, value in (budget or {}).items() if value is not None]
    return "-".join([f"claims-{setup.key}", *tags])


def _identity(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` without :data:`NOT_IDENTITY`: what decides whether a run is the one asked for."""
    return {key: value for key, value in fields.items() if key not in NOT_IDENTITY}


def member_settings(
    setup: ClaimSetup, seed: int, *, short: bool = False, budget: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The probe config fields of ``setup``'s run with ``seed``: the setup's settings, then ``--short``'s,
    then the budget (a ``limit`` only shrinks; a ``sample_size`` measures one fixed sample; a setup that
    measures samples already, App. A, keeps its items, samples and ``metric_every``)."""
    fields = {**setup.settings, "seed": seed}
    sampled = setup.settings.get("sample_size") is not None  # App. A: samples of its own
    given = {name: value for name, value in (budget or {}).items() if value is not None}
    for name, value in {**(SHORT if short else {}), **given}.items():
        if name in ("limit", "metric_every", "sample_size") and sampled and not short:
            continue  # App. A: all items, the metrics on a sample after every update (cheap)
        if name == "sample_size":  # one fixed sample (step 0's): the curves follow the same items
            fields["sample_size"] = min(value, setup.items, fields.get("limit") or setup.items)
            fields["fixed_sample"] = True
            continue
        if name == "limit":
            current = fields.get("limit")
            value = value if current is None else min(value, current)
            if fields.get("sample_size") is not None:
                fields["sample_size"] = min(fields["sample_size"], value)
        fields[name] = value
    return fields


def count_items(fields: dict[str, Any]) -> int:
    """The items a probe run with ``fields`` trains, counted by building its problem with blank sentence
    embeddings (no encoder runs; word sets look their words up in the vector table as the run does)."""
    import numpy as np

    from engine.experiments import EXPERIMENTS
    from engine.probe.problem import build_problem

    config = EXPERIMENTS["probe"].make_config(**fields)
    return build_problem(config, lambda texts: np.zeros((len(texts), 2), dtype=np.float32)).n_items


def _finished_with(folder: Path, fields: dict[str, Any]) -> bool:
    """Whether ``folder`` holds a finished run made with ``fields`` (:data:`NOT_IDENTITY` aside)."""
    from engine.runlog import CONFIG, read_json, read_summary

    try:
        summary = read_summary(folder)
        config = read_json(folder / CONFIG)
    except (OSError, ValueError, EmbedlabError):
        return False
    if not summary or summary.get("state") != RunState.FINISHED:
        return False
    return all(config.get(key) == value for key, value in _identity(fields).items())


def open_group(folder: Path, base: dict[str, Any], seeds: Sequence[int], name: str) -> Any:
    """The claims group of one setup in ``folder`` (:mod:`engine.groups`): the one there when it was made
    with the same settings and seeds, else a new one (the old ``group.json`` replaced; its members' run
    folders stay and count when they hold a finished run with the member's settings). A group made with
    another device or data folder is the same group: its base takes this run's (for members still to run)."""
    from dataclasses import replace

    from engine import groups

    grid = {"seed": list(seeds)}
    group = None
    if (folder / groups.GROUP_FILE).exists():
        try:
            group = groups.read_group(folder)
        except groups.GroupError:
            group = None
        same = group is not None and group.kind == "probe" and group.grid == grid
        if group is not None and not (same and _identity(group.base) == _identity(base)):
            group = None
        if group is None:
            (folder / groups.GROUP_FILE).unlink()
        elif group.base != base:
            group = replace(group, base=dict(base))
    if group is None:
        group = groups.create_group(folder, "probe", base, grid, name=name)
    dirs = groups.member_dirs(group)
    for member in group.members:
        if member.status != groups.MemberStatus.DONE and _finished_with(
            dirs[member.id], group.config_of(member)
        ):
            group = group.with_member(replace(member, status=groups.MemberStatus.DONE, error=None))
    groups.write_group(group)
    return group


def setup_base(
    setup: ClaimSetup,
    seeds: Sequence[int],
    *,
    short: bool = False,
    budget: dict[str, Any] | None = None,
    data_dir: str | None = None,
    device: str | None = None,
) -> dict[str, Any]:
    """The group base of ``setup``'s runs: its member settings without the seed, with the data folder and
    the device when given."""
    base = member_settings(setup, seeds[0], short=short, budget=budget)
    base.pop("seed")
    if data_dir is not None:
        base["data_dir"] = data_dir
    if device is not None:
        base["device"] = device
    return base


def run_setup(
    setup: ClaimSetup,
    seeds: Sequence[int],
    out: Path,
    *,
    short: bool = False,
    budget: dict[str, Any] | None = None,
    data_dir: str | None = None,
    device: str | None = None,
    executor: Any = None,
    report: Reporter = print,
) -> ClaimRow:
    """``setup`` over ``seeds`` as a group in ``out/`` :func:`group_name` (members ``runs/seed-<k>``), run
    by ``executor`` (:class:`engine.groups.LocalExecutor` by default, one by one; a Ray executor for
    ``--ray``) on ``device`` (the probe's device knob; None: its default); its row."""
    from engine import groups

    base = setup_base(setup, seeds, short=short, budget=budget, data_dir=data_dir, device=device)
    folder = out / group_name(setup, short=short, budget=budget)
    with groups.holding(folder):  # one runner per group: a second claims run on this --out is refused
        group = open_group(folder, base, seeds, f"claims {setup.key}: {setup.title}")
        group = groups.run_group(group, executor or groups.LocalExecutor(echo=False), retry_failed=True)
    return _row(setup, group, base, report)


class MissingRuns(EmbedlabError):
    """A claims group that is not on disk, or not finished, where a reader (``python -m engine results``)
    needs it: one line naming the folder and what is missing."""


def read_setup(
    setup: ClaimSetup,
    seeds: Sequence[int],
    out: Path,
    *,
    short: bool = False,
    budget: dict[str, Any] | None = None,
) -> ClaimRow:
    """``setup``'s row from its group in ``out`` as :func:`run_setup` left it, running nothing; a group
    that is missing, was made with other settings or seeds, or has a member without a finished run raises
    :class:`MissingRuns`."""
    from engine import groups

    base = setup_base(setup, seeds, short=short, budget=budget)
    folder = out / group_name(setup, short=short, budget=budget)
    try:
        group = groups.read_group(folder)
    except (OSError, groups.GroupError) as err:
        raise MissingRuns(f"claims group {folder} is missing or unreadable ({err})") from None
    if group.grid != {"seed": list(seeds)} or _identity(group.base) != _identity(base):
        raise MissingRuns(f"claims group {folder} was made with other settings or seeds")
    dirs = groups.member_dirs(group)
    unfinished = [m.id for m in group.members if not _finished_with(dirs[m.id], group.config_of(m))]
    if unfinished:
        raise MissingRuns(f"claims group {folder}: no finished run for {', '.join(unfinished)}")
    return _row(setup, group, group.base, lambda _: None)


def _row(setup: ClaimSetup, group: Any, base: dict[str, Any], report: Reporter) -> ClaimRow:
    """The row of ``setup`` from its ``group`` (run with ``base``)."""
    from engine import groups
    from engine.runlog import read_summary

    dirs = groups.member_dirs(group)
    summaries, failed = [], []
    for member in group.members:
        summary = read_summary(dirs[member.id]) if member.status == groups.MemberStatus.DONE else None
        if summary is None:
            failed.append(f"{member.id}: {member.error or member.status}")
            report(f"{setup.key} {member.id}: failed: {member.error or member.status}")
            continue
        summaries.append(summary)
        report(
            f"{setup.key} {member.id}: r {summary.get('pearson_r')}, {summary.get('wall_seconds', 0):.0f} s"
        )
    items = group_items(group.path, base, group.grid["seed"][0]) if summaries else 0
    changed = [
        f"{name} {_shown(setup.settings.get(name))} → {_shown(base.get(name))}"
        for name in BUDGET_KNOBS
        if base.get(name) != setup.settings.get(name)
    ]
    sample, fixed = base.get("sample_size"), bool(base.get("fixed_sample"))
    return claim_row(setup, summaries, items, failed, sample, fixed, changed, base)


def group_items(folder: Path, base: dict[str, Any], seed: int) -> int:
    """The items a group's runs train: from its ``claims.json`` when made with the same settings, else
    counted (:func:`count_items`, which reads the data) and recorded there; 0 when neither works."""
    import json

    from engine.runlog import jsonable

    record = folder / CLAIMS_FILE
    identity = jsonable(_identity(base))
    try:
        saved = json.loads(record.read_text(encoding="utf-8"))
        same = isinstance(saved, dict) and saved.get("settings") == identity
        if same and isinstance(saved.get("items"), int):
            return saved["items"]
    except (OSError, ValueError):
        pass
    try:
        items = count_items({**base, "seed": seed})
    except (OSError, ValueError, EmbedlabError) as err:
        log.warning("cannot count the items of %s: %s", folder, err)
        return 0
    try:
        write_text_atomic(record, json.dumps({"items": items, "settings": identity}, indent=1))
    except OSError as err:
        log.warning("cannot record the item count in %s: %s", record, err)
    return items


def _shown(value: Any) -> str:
    """A setting's value in the table's notes (None: all items, every step)."""
    return "all" if value is None else str(value)
