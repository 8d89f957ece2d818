"""A group's summary (``summary.json``) and its members' curves, for the tables and the band charts.

A *cell* is one distinct combination of the non-seed knobs of the grid (a seeds-only group has one cell);
its members are the seeds. For each cell and each headline figure of :data:`HEADLINES` that its finished
members logged, the summary gives ``mean``, ``std`` (the *sample* standard deviation, ddof = 1, as the
papers' "± std over seeds"; None with one value), ``min``, ``max`` and ``n`` (the members that logged it).
Only members whose status is ``done`` count.

``summary.json``::

    {"format": 1, "group": name, "kind": kind, "std": "sample standard deviation (ddof=1)",
     "cells": [{"label": "lr=0.001", "params": {non-seed knob: value}, "members": [ids], "done": int,
                "failed": int, "unreadable": [ids of members marked done whose summary.json cannot be read],
                "figures": {figure: {"mean", "std", "min", "max", "n"}}}]}
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

from engine import runlog
from engine.core import measures
from engine.groups.format import SUMMARY_FILE, Group, Member, MemberStatus, member_dirs

SEED = "seed"
STD_NOTE = "sample standard deviation (ddof=1)"

#: the headline figures of a run summary: (key in the group summary, what it is)
HEADLINES: tuple[tuple[str, str], ...] = (
    ("isoscore_start", "IsoScore at the start"),
    ("isoscore_end", "final IsoScore"),
    ("silhouette_start", "silhouette at the start"),
    ("silhouette_end", "final silhouette"),
    ("pearson_r", "Pearson r of IsoScore against the silhouette"),
    ("spearman_rho", "Spearman ρ of IsoScore against the silhouette"),
    ("sts_spearman_start", "STS Spearman at the start"),
    ("sts_spearman_end", "final STS Spearman"),
    (f"{measures.RANKME}_end", "final RankMe (effective rank)"),
)


def headline_value(summary: dict[str, Any], key: str) -> float | None:
    """Figure ``key`` of one run's ``summary.json``: the key itself, else SimCSE's/JEPA's probe-set column
    (``probe_silhouette_end``), else for ``<m>_end`` the last logged value of ``m`` (``final``)."""
    final = summary.get("final") if isinstance(summary.get("final"), dict) else {}
    candidates = [summary.get(key), summary.get(f"probe_{key}")]
    if key.endswith("_end"):
        measure = key.removesuffix("_end")
        candidates += [final.get(measure), final.get(f"probe_{measure}")]
    for value in candidates:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    return None


def stats(values: list[float]) -> dict[str, Any]:
    """mean, sample std (ddof=1; None for one value), min, max and n of ``values``."""
    return {
        "mean": statistics.fmean(values),
        "std": statistics.stdev(values) if len(values) > 1 else None,
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def cell_params(member: Member) -> dict[str, Any]:
    """The knobs that make ``member``'s cell: every knob of the grid but the seed."""
    return {k: v for k, v in member.params.items() if k != SEED}


def cell_label(params: dict[str, Any]) -> str:
    """``lr=0.001, dropout=0.1``; ``all`` for a seeds-only group."""
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "all"


def cells(group: Group) -> list[tuple[dict[str, Any], list[Member]]]:
    """The group's cells in grid order: (non-seed knobs, its members)."""
    found: dict[str, tuple[dict[str, Any], list[Member]]] = {}
    for member in group.members:
        params = cell_params(member)
        found.setdefault(cell_label(params), (params, []))[1].append(member)
    return list(found.values())


def summarise(group: Group, *, write: bool = True) -> dict[str, Any]:
    """The group summary (see the module's docstring); written atomically to ``summary.json`` unless
    ``write`` is false. A member marked done whose ``summary.json`` is missing or unreadable does not count
    as done: it is listed under ``unreadable`` (and :func:`format_summary` says so)."""
    dirs = member_dirs(group)
    out_cells = []
    for params, members in cells(group):
        read = [(m.id, _run_summary(dirs[m.id])) for m in members if m.status == MemberStatus.DONE]
        summaries = [s for _, s in read if s is not None]
        figures = {}
        for key, _ in HEADLINES:
            values = [v for v in (headline_value(s, key) for s in summaries) if v is not None]
            if values:
                figures[key] = stats(values)
        out_cells.append(
            {
                "label": cell_label(params),
                "params": params,
                "members": [m.id for m in members],
                "done": len(summaries),
                "failed": sum(m.status == MemberStatus.FAILED for m in members),
                "unreadable": [member for member, s in read if s is None],
                "figures": figures,
            }
        )
    summary = {"format": 1, "group": group.name, "kind": group.kind, "std": STD_NOTE, "cells": out_cells}
    if write:
        runlog.write_json_atomic(group.path / SUMMARY_FILE, summary)
    return summary


def _run_summary(run_dir: Any) -> dict[str, Any] | None:
    try:
        return runlog.read_summary(run_dir)
    except (OSError, ValueError):
        return None


def format_summary(summary: dict[str, Any], digits: int = 4) -> str:
    """The summary as text: per cell, each figure as ``mean ± std (min … max, n)``."""
    lines = [f"group {summary['group']} ({summary['kind']}); ± is the {summary['std']}"]
    labels = dict(HEADLINES)
    for cell in summary["cells"]:
        unreadable = cell.get("unreadable") or []
        damaged = f", {len(unreadable)} marked done with no readable summary.json" if unreadable else ""
        lines.append(
            f"{cell['label']}: {cell['done']} of {len(cell['members'])} runs done, {cell['failed']} failed"
            + damaged
        )
        for key, figure in cell["figures"].items():
            std = "n/a" if figure["std"] is None else f"{figure['std']:.{digits}f}"
            lines.append(
                f"  {labels.get(key, key):<48} {figure['mean']:.{digits}f} ± {std}"
                f"  ({figure['min']:.{digits}f} … {figure['max']:.{digits}f}, n={figure['n']})"
            )
    return "\n".join(lines)


def curves(group: Group, measure: str) -> pd.DataFrame:
    """Every member's logged ``measure`` per step, long form: columns ``member``, ``cell``, ``step``,
    ``value`` (members without the column or without rows are left out)."""
    frames = []
    labels = {m.id: cell_label(cell_params(m)) for m in group.members}
    for member_id, run_dir in member_dirs(group).items():
        if not (run_dir / runlog.METRICS).is_file():
            continue
        try:
            metrics = runlog.read_metrics(run_dir)
        except (OSError, ValueError):
            continue
        if measure not in metrics.columns or "step" not in metrics.columns:
            continue
        rows = metrics[["step", measure]].dropna()
        frames.append(
            pd.DataFrame(
                {
                    "member": member_id,
                    "cell": labels[member_id],
                    "step": rows["step"].astype(int).to_numpy(),
                    "value": rows[measure].astype(float).to_numpy(),
                }
            )
        )
    if not frames:
        return pd.DataFrame({"member": [], "cell": [], "step": [], "value": []})
    return pd.concat(frames, ignore_index=True)


def band(group: Group, measure: str) -> pd.DataFrame:
    """Per cell and step, over the members that logged ``measure`` there: ``mean``, ``std`` (ddof=1; NaN
    for one member), ``min``, ``max``, ``n``. Columns ``cell``, ``step``, ``mean``, ``std``, ``min``,
    ``max``, ``n`` (for a mean ± std or a min–max band)."""
    long = curves(group, measure)
    if long.empty:
        return pd.DataFrame(columns=["cell", "step", "mean", "std", "min", "max", "n"])
    grouped = long.groupby(["cell", "step"], sort=False)["value"]
    frame = grouped.agg(["mean", "std", "min", "max", "count"]).reset_index()
    return (
        frame.rename(columns={"count": "n"})
        .sort_values(["cell", "step"], kind="stable")
        .reset_index(drop=True)
    )
