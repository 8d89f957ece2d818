"""Groups of runs: the same experiment over several seeds (``--seeds``) or a grid of knobs (``sweep``).

Folder ``<cache>/groups/<group-id>/`` (:func:`engine.core.paths.groups_dir`; ``--out`` may name any other
folder), never inside the runs folder, so the runs listing is unchanged:

- ``group.json``: ``{"format": 1, "name", "kind" (the experiment), "created" (unix time), "base" (the config
  fields common to all members), "grid" ({knob: [values]}; seeds are the grid over ``seed``), "members":
  [{"id", "params" ({knob: value}), "status" (queued|running|done|failed), "error" (one line or null),
  "attempts"}]}``; written atomically by the one process that runs the group;
- ``runs/<member-id>/``: each member's ordinary run folder (every :mod:`engine.runlog` reader reads it);
- ``summary.json``: per *cell* (each distinct combination of the non-seed knobs), its members and each
  headline figure of their run summaries (:data:`HEADLINES`: IsoScore and silhouette at the start and the
  end, Pearson r and Spearman ρ of IsoScore against the silhouette, STS Spearman at the start and the end,
  the final RankMe) as ``mean``, ``std`` (sample std, ddof = 1; None for one value), ``min``, ``max``,
  ``n``, over the members that are done (one marked done whose ``summary.json`` cannot be read is listed as
  ``unreadable``, not counted);
- ``.runner.lock``: held by the one process that runs the group (:mod:`engine.groups.lock`).

Public API (stable):

- ``create_group(path, kind, base, grid, name=None) -> Group``: writes a new group, every member queued;
  ``path`` a bare name goes under ``<cache>/groups`` (:func:`group_path`);
- ``read_group(path) -> Group``: a damaged or partial ``group.json`` is one :class:`GroupError` line;
- ``list_groups(root=None) -> list[Group]``: the readable groups, newest first;
- ``member_dirs(group) -> {member id: run folder}``;
- ``run_group(group, executor=None, retry_failed=False, on_update=None) -> Group``: under the group's
  runner lock, reconciles the group with its run folders, then runs the pending members
  (:class:`LocalExecutor` one by one in-process by default; ``engine.sweep.ray_run.RayExecutor`` on Ray),
  keeping ``group.json`` and ``summary.json`` current;
- ``holding(folder)``: the runner lock as a context manager (re-entrant; a second live runner is one
  :class:`GroupError` line naming its pid); ``runner_alive(folder)``; ``pending(group, retry_failed)``;
  ``reconcile(group)`` (members whose folder holds their finished run are done; a done member whose folder
  holds none is failed, with the reason);
- ``summarise(group, write=True) -> dict`` (the summary) and ``format_summary(summary) -> str``
  (``mean ± std`` lines);
- ``cells(group) -> [(non-seed knobs, members)]``, ``cell_label(params)``;
- ``curves(group, measure) -> DataFrame[member, cell, step, value]`` and ``band(group, measure) ->
  DataFrame[cell, step, mean, std, min, max, n]``: the members' per-step curves and their band;
- :class:`Group` (``path``, ``name``, ``kind``, ``created``, ``base``, ``grid``, ``members``,
  ``config_of(member)``), :class:`Member` (``id``, ``params``, ``status``, ``error``, ``attempts``).

A group of seeds from an experiment's command line (``--seeds``) is :mod:`~engine.groups.seeds`; the
plumbing every command line shares is :mod:`engine.command`.
"""

from engine.groups.format import (
    GROUP_FILE,
    SUMMARY_FILE,
    Group,
    GroupError,
    Member,
    MemberStatus,
    create_group,
    group_path,
    list_groups,
    member_dirs,
    read_group,
    write_group,
)
from engine.groups.lock import holding, runner_alive
from engine.groups.runner import (
    Executor,
    LocalExecutor,
    counts,
    execute_member,
    finished_run,
    pending,
    reconcile,
    run_group,
)
from engine.groups.summary import (
    HEADLINES,
    STD_NOTE,
    band,
    cell_label,
    cells,
    curves,
    format_summary,
    headline_value,
    summarise,
)

__all__ = [
    "GROUP_FILE",
    "HEADLINES",
    "STD_NOTE",
    "SUMMARY_FILE",
    "Executor",
    "Group",
    "GroupError",
    "LocalExecutor",
    "Member",
    "MemberStatus",
    "band",
    "cell_label",
    "cells",
    "counts",
    "create_group",
    "curves",
    "execute_member",
    "finished_run",
    "format_summary",
    "group_path",
    "headline_value",
    "holding",
    "list_groups",
    "member_dirs",
    "pending",
    "read_group",
    "reconcile",
    "run_group",
    "runner_alive",
    "summarise",
    "write_group",
]
