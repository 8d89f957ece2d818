"""``python -m engine group GROUP``: a group's state (how many runs are queued, running, done, failed, each
failure's line) and its summary as mean ± std; ``--json`` prints ``summary.json``'s content instead."""

from __future__ import annotations

import argparse
import json

from engine.groups.format import group_path, read_group
from engine.groups.runner import counts
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
    group = read_group(group_path(args.group))
    summary = summarise(group)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return 0
    state = ", ".join(f"{count} {status}" for status, count in counts(group).items() if count)
    print(f"{group.path}: {group.kind}, {len(group.members)} runs: {state}")
    for member in group.members:
        if member.status == "failed":
            print(f"failed: {member.id}: {member.error}")
    print(format_summary(summary))
    return 0
