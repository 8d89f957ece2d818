"""Running the claims table: every setup over the seeds, one ordinary probe run folder per seed; the rows.

Each setup is a group of :mod:`engine.groups` (``<out>/claims-<setup key>/group.json``, a member per seed,
its run folder ``runs/seed-<k>/``, ``summary.json``), so Compare shows it while it runs. A member whose folder
already holds a finished run with the same settings is read, not run again: a table interrupted half-way
continues where it stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.claims.setups import SHORT, ClaimSetup
from engine.claims.table import ClaimRow, claim_row
from engine.errors import EmbedlabError

log = logging.getLogger(__name__)

#: the settings a claims run may shrink to fit a machine (``--steps``, ``--limit``, ``--metric-every``,
#: ``--sample-size``: the measures on one fixed seeded sample of the items, all items trained)
BUDGET_KNOBS = ("steps", "limit", "metric_every", "sample_size")
Reporter = Callable[[str], None]


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
    """Whether ``folder`` holds a finished run made with ``fields`` (``data_dir`` aside)."""
    from engine.runlog import CONFIG, read_json, read_summary

    try:
        summary = read_summary(folder)
        config = read_json(folder / CONFIG)
    except (OSError, ValueError, EmbedlabError):
        return False
    if not summary or summary.get("state") != "finished":
        return False
    return all(config.get(key) == value for key, value in fields.items() if key != "data_dir")


def open_group(folder: Path, base: dict[str, Any], seeds: Sequence[int], name: str) -> Any:
    """The claims group of one setup in ``folder`` (:mod:`engine.groups`): the one there when it was made
    with the same settings and seeds, else a new one (the old ``group.json`` replaced; its members' run
    folders stay and count when they hold a finished run with the member's settings)."""
    from dataclasses import replace

    from engine import groups

    grid = {"seed": list(seeds)}
    group = None
    if (folder / groups.GROUP_FILE).exists():
        try:
            group = groups.read_group(folder)
        except groups.GroupError:
            group = None
        if group is not None and (group.kind != "probe" or group.base != base or group.grid != grid):
            group = None
        if group is None:
            (folder / groups.GROUP_FILE).unlink()
    if group is None:
        group = groups.create_group(folder, "probe", base, grid, name=name)
    dirs = groups.member_dirs(group)
    for member in group.members:
        if member.status != "done" and _finished_with(dirs[member.id], group.config_of(member)):
            group = group.with_member(replace(member, status="done", error=None))
    groups.write_group(group)
    return group


def run_setup(
    setup: ClaimSetup,
    seeds: Sequence[int],
    out: Path,
    *,
    short: bool = False,
    budget: dict[str, Any] | None = None,
    data_dir: str | None = None,
    executor: Any = None,
    report: Reporter = print,
) -> ClaimRow:
    """``setup`` over ``seeds`` as a group in ``out/claims-<key>`` (members ``runs/seed-<k>``), run by
    ``executor`` (:class:`engine.groups.LocalExecutor` by default, one by one; a Ray executor for ``--ray``);
    its row."""
    from engine import groups
    from engine.runlog import read_summary

    base = member_settings(setup, seeds[0], short=short, budget=budget)
    base.pop("seed")
    if data_dir is not None:
        base["data_dir"] = data_dir
    folder = out / f"claims-{setup.key}"
    with groups.holding(folder):  # one runner per group: a second claims run on this --out is refused
        group = open_group(folder, base, seeds, f"claims {setup.key}: {setup.title}")
        group = groups.run_group(group, executor or groups.LocalExecutor(echo=False), retry_failed=True)
    dirs = groups.member_dirs(group)
    summaries, failed = [], []
    for member in group.members:
        summary = read_summary(dirs[member.id]) if member.status == "done" else None
        if summary is None:
            failed.append(f"{member.id}: {member.error or member.status}")
            report(f"{setup.key} {member.id}: failed: {member.error or member.status}")
            continue
        summaries.append(summary)
        report(
            f"{setup.key} {member.id}: r {summary.get('pearson_r')}, {summary.get('wall_seconds', 0):.0f} s"
        )
    items = count_items({**base, "seed": seeds[0]}) if summaries else 0
    changed = [
        f"{name} {_shown(setup.settings.get(name))} → {_shown(base.get(name))}"
        for name in BUDGET_KNOBS
        if base.get(name) != setup.settings.get(name)
    ]
    sample, fixed = base.get("sample_size"), bool(base.get("fixed_sample"))
    return claim_row(setup, summaries, items, failed, sample, fixed, changed)


def _shown(value: Any) -> str:
    """A setting's value in the table's notes (None: all items, every step)."""
    return "all" if value is None else str(value)
