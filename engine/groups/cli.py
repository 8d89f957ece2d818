"""``python -m engine group GROUP``: a group's state (how many runs are queued, running, done, failed, each
failure's line) and its summary as mean ± std; ``--json`` prints ``summary.json``'s content instead.

While no process runs the group, ``group.json`` is first reconciled with the run folders
(:func:`engine.groups.reconcile`): a member whose folder holds its finished run is done, one marked done
whose folder holds none is failed with the reason; members left ``running`` by a runner that ended are
shown as such. While a runner lives, the group is shown as it is, naming the runner's pid."""

from __future__ import annotations

import argparse
import json

from engine.groups.format import GroupError, MemberStatus, group_path, read_group
from engine.groups.lock import holding, owner, runner_alive
from engine.groups.runner import counts, reconcile
from engine.groups.summary import format_summary, summarise


def add_parser(commands: argparse._SubParsersAction) -> None:
    show = commands.add_parser(
        "group",
        help="a group of runs (seeds, a sweep): its state and summary",
        description="The state of a group's runs and its summary (each headline figure as mean ± sample "
        "std per cell); the summary is written again to its summary.json.",
    )
    show.add_argument("group", help="the group's folder (a bare name: under cache/groups)")
    show.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    folder = group_path(args.group)
    group = read_group(folder)
    alive = runner_alive(folder)
    if not alive:
        try:
            with holding(folder):
                group = reconcile(read_group(folder))
        except GroupError:
            alive = runner_alive(folder)  # a runner that started just now: show the group as it is
            if not alive:
                raise
    summary = summarise(group, write=not alive)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return 0
    state = ", ".join(f"{count} {status}" for status, count in counts(group).items() if count)
    print(f"{group.path}: {group.kind}, {len(group.members)} runs: {state}")
    if alive:
        print(f"being run by pid {owner(folder).get('pid', '?')}")
    elif counts(group)["running"]:
        print("the runs marked running were left so by a runner that ended: --retry-failed runs them again")
    for member in group.members:
        if member.status == MemberStatus.FAILED:
            print(f"failed: {member.id}: {member.error}")
    print(format_summary(summary))
    return 0
