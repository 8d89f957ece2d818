"""The claims tables on disk: ``python -m engine claims`` saves each table it prints (its date, command,
seeds, budget, both verdicts per setup and the Markdown) under its protocol (:func:`protocol_of`: ``paper``
for the setups' own protocol, ``short`` for ``--short``, ``budget-…`` for a budget) beside
:func:`engine.core.paths.claims_table_path`, so that a ``--short`` table never replaces a longer one; the app
shows the longest (:func:`longest`: most updates × seeds; views/overview.py) and says which. Plain JSON, no
numeric library: a page script may import this."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core import paths
from engine.core.atomic import write_text_atomic
from engine.core.errors import ConfigError

if TYPE_CHECKING:  # the rows' type only: engine.claims.table imports NumPy
    from engine.claims.table import ClaimRow

FORMAT = 1


def protocol_of(short: bool, budget: dict[str, Any] | None) -> str:
    """The protocol a table ran under, as its file's name: ``short`` (``--short``), ``budget-<flag>-<value>…``
    (a budget's flags, sorted), else ``paper`` (the setups' own)."""
    if short:
        return "short"
    if budget:
        words = "-".join(f"{name}-{value}" for name, value in sorted(budget.items()))
        return "budget-" + re.sub(r"[^A-Za-z0-9_-]+", "_", words)
    return "paper"


def record(
    rows: Sequence[ClaimRow],
    *,
    command: str,
    seeds: Sequence[int],
    out: str,
    markdown: str,
    protocol: str = "paper",
) -> dict[str, Any]:
    """The saved form of a table: when, the command, its protocol (:func:`protocol_of`), the seeds, its
    length (the updates of its setups times the seeds), where the runs are, and one entry per setup (its
    cells, updates, budget and both verdicts)."""
    from engine.claims.table import COLUMNS, cells

    return {
        "format": FORMAT,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "command": command,
        "protocol": protocol,
        "length": sum(row.steps for row in rows) * len(seeds),
        "seeds": list(seeds),
        "out": out,
        "columns": list(COLUMNS),
        "rows": [
            {
                "key": row.setup.key,
                "setup": row.setup.title,
                "updates": row.updates_text,
                "paper_protocol": not row.budget,
                "seeds": row.seeds,
                "lab_verdict": row.verdict,
                "holds": row.holds if row.seeds else None,
                "paper_verdict": row.paper_verdict,
                "matches_paper": row.matches_paper,
                "paper": row.setup.paper_note,
                "source": row.setup.source_text,
                "failed": list(row.failed),
                "cells": cells(row, links=False),
            }
            for row in rows
        ],
        "markdown": markdown,
    }


def table_path(protocol: str) -> Path:
    """Where a table of ``protocol`` is saved: ``<cache>/claims/<protocol>.json``."""
    return paths.claims_table_path().with_name(f"{protocol}.json")


def save(table: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``table`` to ``path`` (default: :func:`table_path` of its protocol) atomically, never over a
    table of another protocol; the path."""
    path = path or table_path(str(table.get("protocol") or "paper"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(table, ensure_ascii=False, indent=1))
    except OSError as err:
        refusal = paths.not_writable(err, path.parent)
        why = err.strerror or err
        raise refusal or ConfigError(f"cannot save the claims table to {path}: {why}") from None
    return path


def load(path: Path | None = None) -> dict[str, Any] | None:
    """The saved table at ``path`` (default: the one the app shows, :func:`longest`); None when there is
    none. A file that is not a saved table raises :class:`ConfigError` (one line naming it)."""
    if path is None:
        return longest()
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise ConfigError(f"the saved claims table {path} is unreadable ({err})") from None
    rows = table.get("rows") if isinstance(table, dict) else None
    if not isinstance(table, dict) or table.get("format") != FORMAT or not isinstance(rows, list):
        raise ConfigError(f"the saved claims table {path} is not a table of format {FORMAT}")
    if not all(isinstance(row, dict) for row in table["rows"]):
        raise ConfigError(f"the saved claims table {path} has a row that is not an object")
    return table


def saved_tables(folder: Path | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """Every saved table (path, table) in ``folder`` (default: that of
    :func:`engine.core.paths.claims_table_path`), ``latest.json`` of older versions included; an unreadable
    one raises (:func:`load`)."""
    folder = folder or paths.claims_table_path().parent
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        table = load(path)
        if table is not None:
            found.append((path, table))
    return found


def length(table: dict[str, Any]) -> int:
    """How long a saved table ran: its ``length`` (updates × seeds); for a table saved before it was
    recorded, the updates of its rows (``30 of 1000`` counts 30) times its seeds."""
    if isinstance(table.get("length"), int):
        return table["length"]
    updates = 0
    for row in table.get("rows", []):
        digits = re.match(r"\s*([\d,]+)", str(row.get("updates") or ""))
        updates += int(digits.group(1).replace(",", "")) if digits else 0
    return updates * max(1, len(table.get("seeds") or []))


def longest(folder: Path | None = None) -> dict[str, Any] | None:
    """The saved table that ran longest (the paper's protocol first where lengths tie), None when none is
    saved: what the Overview shows, never replaced by a shorter ``--short`` table."""
    tables = [table for _, table in saved_tables(folder)]
    if not tables:
        return None
    return max(tables, key=lambda table: (length(table), table.get("protocol") == "paper"))


def protocol_words(table: dict[str, Any]) -> str:
    """Which table this is, in words: the paper's protocol, ``--short`` or a budget."""
    protocol = str(table.get("protocol") or "")
    if protocol == "paper" or (not protocol and all(r.get("paper_protocol") for r in table.get("rows", []))):
        return "the setups' own protocol (the paper's updates)"
    if protocol == "short":
        return "`--short` (tiny runs: a first look, not the paper's protocol)"
    return "a budget (not the paper's protocol)"
