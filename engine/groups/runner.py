"""Run a group's members and keep ``group.json`` up to date; this process is its only writer.

:func:`run_group` holds the group's runner lock (:mod:`engine.groups.lock`: a second runner is refused),
first :func:`reconcile`s ``group.json`` with the members' run folders, then hands the pending members to an
executor and records what it reports: a member is ``running`` when the executor starts it, then ``done`` or
``failed`` (with its one-line error); ``attempts`` counts its starts. The summary is rewritten after every
member. :class:`LocalExecutor` runs the members one by one in this process;
:class:`engine.sweep.ray_run.RayExecutor` runs them on a pool of warm Ray actors. Both call
:func:`execute_member`, which writes the member's ordinary run folder ``<group>/runs/<id>/``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from engine.core.errors import one_line
from engine.groups.format import RUNS, STATUSES, Group, Member, MemberStatus, member_dirs, write_group
from engine.groups.lock import holding, runner_alive
from engine.groups.summary import summarise
from engine.runlog.states import RunState

#: a finished member as an executor reports it: (member id, None when it succeeded else its one line)
Outcome = tuple[str, str | None]
STOPPED = "stopped before it finished (run the group again with --retry-failed)"


class Executor(Protocol):
    def run(self, group: Group, members: list[Member], started: Callable[[str], None]) -> Iterator[Outcome]:
        """Run ``members`` of ``group``; call ``started(member id)`` as each starts and yield each outcome
        as it ends (any order)."""
        ...


def execute_member(
    group_path: str,
    kind: str,
    fields: dict[str, Any],
    member_id: str,
    threads: int | None = None,
    stop: threading.Event | None = None,
) -> str | None:
    """Run one member into ``<group_path>/runs/<member_id>/`` (an existing run there is replaced whole).
    Returns None when it finished, else its one-line error (bad settings included). A plain function of
    plain values, so that a Ray worker can run it."""
    from engine.core.declaration import experiment_of
    from engine.runlog.runner import run_experiment

    try:
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
        config = experiment_of(kind).make_config(**fields)
        summary = run_experiment(kind, config, Path(group_path) / RUNS / member_id, stop=stop)
    except Exception as err:  # noqa: BLE001 - every failure is the member's one line
        return one_line(err)
    if summary.get("state") != RunState.FINISHED:
        return STOPPED
    return None


class LocalExecutor:
    """The members one by one, in this process (torch and the encoder load once). Ctrl-C stops the
    current member between two steps (recorded as failed, retryable) and ends the group."""

    def __init__(self, threads: int | None = None, echo: bool = True):
        self.threads = threads
        self.echo = echo

    def run(self, group: Group, members: list[Member], started: Callable[[str], None]) -> Iterator[Outcome]:
        for index, member in enumerate(members, 1):
            started(member.id)
            if self.echo:
                print(f"[{index}/{len(members)}] {member.id}", file=sys.stderr, flush=True)
            try:
                error = execute_member(
                    str(group.path), group.kind, group.config_of(member), member.id, self.threads
                )
            except KeyboardInterrupt:
                yield member.id, STOPPED
                raise
            yield member.id, error


def pending(group: Group, retry_failed: bool = False) -> list[Member]:
    """The members to run: queued ones, ``running`` ones left by a runner that ended (only while no live
    process holds the group's runner lock), and with ``retry_failed`` the failed ones."""
    wanted = {MemberStatus.QUEUED} | ({MemberStatus.FAILED} if retry_failed else set())
    if not runner_alive(group.path):
        wanted.add(MemberStatus.RUNNING)
    return [m for m in group.members if m.status in wanted]


def finished_run(folder: Path, kind: str, fields: dict[str, Any] | None = None) -> str | None:
    """None when ``folder`` holds a finished run (made with ``fields``, when given); else why not, one line
    (no run, a damaged ``status.json`` or ``summary.json``, another state, other settings)."""
    from engine import runlog
    from engine.core.config_dict import config_dict
    from engine.core.declaration import experiment_of

    read = {}
    for name in (runlog.STATUS, runlog.SUMMARY, runlog.CONFIG):
        try:
            read[name] = runlog.read_json(folder / name)
        except FileNotFoundError:
            return f"no {name}"
        except (OSError, ValueError, UnicodeDecodeError) as err:
            return f"{name} is damaged ({one_line(err)[:120]})"
        if not isinstance(read[name], dict):
            return f"{name} is damaged (not an object)"
    state = read[runlog.STATUS].get("state")
    if state != RunState.FINISHED or read[runlog.SUMMARY].get("state") != RunState.FINISHED:
        return f"the run there is {state}, not finished"
    if fields is None:
        return None
    try:
        wanted = config_dict(experiment_of(kind).make_config(**fields))
    except Exception as err:  # noqa: BLE001 - settings that no longer make a config: not that run
        return f"its settings make no config ({one_line(err)[:120]})"
    recorded = read[runlog.CONFIG]
    same = all(recorded.get(key) == value for key, value in runlog.jsonable(wanted).items())
    return None if same else "the run there was made with other settings"


def reconcile(group: Group) -> Group:
    """``group`` as its run folders say, for the holder of its runner lock: a member not ``done`` whose
    folder holds a finished run with its settings is ``done`` (not run again); a ``done`` member whose folder
    holds no readable finished run (a damaged ``status.json`` or ``summary.json``) is ``failed`` with the
    reason, so ``--retry-failed`` runs it again. Writes ``group.json`` when anything changed."""
    dirs, changed = member_dirs(group), group
    for member in group.members:
        if member.status == MemberStatus.DONE:
            why = finished_run(dirs[member.id], group.kind)
            if why is not None:
                error = f"marked done, but its run folder holds no finished run: {why}"
                changed = changed.with_member(replace(member, status=MemberStatus.FAILED, error=error))
        elif finished_run(dirs[member.id], group.kind, group.config_of(member)) is None:
            changed = changed.with_member(replace(member, status=MemberStatus.DONE, error=None))
    if changed != group:
        write_group(changed)
    return changed


def run_group(
    group: Group,
    executor: Executor | None = None,
    *,
    retry_failed: bool = False,
    on_update: Callable[[Group], None] | None = None,
) -> Group:
    """Run the pending members of ``group`` with ``executor`` (default :class:`LocalExecutor`), writing
    ``group.json`` at each start and end and ``summary.json`` after each end; return the final group.
    ``on_update`` sees the group after each change. Holds the group's runner lock throughout (another live
    runner of the group: one GroupError line naming its pid)."""
    executor = executor or LocalExecutor()
    with holding(group.path):
        state = {"group": reconcile(group)}

        def save(member: Member) -> None:
            state["group"] = state["group"].with_member(member)
            write_group(state["group"])
            if on_update is not None:
                on_update(state["group"])

        def started(member_id: str) -> None:
            member = state["group"].member(member_id)
            save(replace(member, status=MemberStatus.RUNNING, error=None, attempts=member.attempts + 1))

        todo = pending(state["group"], retry_failed)
        try:
            for member_id, error in executor.run(state["group"], todo, started):
                member = state["group"].member(member_id)
                save(replace(member, status=MemberStatus.FAILED if error else MemberStatus.DONE, error=error))
                summarise(state["group"])
        finally:
            summarise(state["group"])
    return state["group"]


def counts(group: Group) -> dict[str, int]:
    """How many members are in each status."""
    out = dict.fromkeys(STATUSES, 0)
    for member in group.members:
        out[member.status] += 1
    return out
