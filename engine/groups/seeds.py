"""``python -m engine KIND --seeds 0,1,2 --out GROUP``: a group of runs of one experiment that differ only in
their seed, run one by one in this process."""

from __future__ import annotations

import sys

from engine.command.exits import EXIT_FAILURE
from engine.command.signals import interrupting
from engine.core.errors import ConfigError


def run_seed_group(kind: str, config: object, out: str, seeds_text: str, threads: int | None = None) -> int:
    """``python -m engine KIND --seeds 0,1,2 --out GROUP``: one run per seed into a new group (the other
    settings from ``config``), one by one in this process; prints the summary as mean ± std."""
    from dataclasses import asdict

    from engine import groups
    from engine.core.declaration import experiment_of
    from engine.core.errors import one_line
    from engine.core.flags import parse_seeds

    seeds = parse_seeds(seeds_text)
    if getattr(config, "save_encoder", None):
        raise ConfigError("--save-encoder: the runs of a group would overwrite one encoder; leave it out")
    base = asdict(config)
    for seed in seeds:  # every seed within the experiment's own range before anything runs
        try:
            experiment_of(kind).make_config(**{**base, "seed": seed})
        except ConfigError as err:
            raise ConfigError(f"--seeds: {one_line(err)}") from None
    folder = groups.group_path(out)
    with interrupting(), groups.holding(folder):
        group = groups.create_group(folder, kind, base, {"seed": seeds})
        print(f"group {group.path}: {len(group.members)} runs", file=sys.stderr, flush=True)
        group = groups.run_group(group, groups.LocalExecutor(threads=threads))
    print(groups.format_summary(groups.summarise(group, write=False)))
    failed = [m for m in group.members if m.status == groups.MemberStatus.FAILED]
    for member in failed:
        print(f"failed: {member.id}: {member.error}", file=sys.stderr)
    return EXIT_FAILURE if failed else 0
