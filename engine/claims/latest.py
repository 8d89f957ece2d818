"""The latest claims table on disk: ``python -m engine claims`` saves each table it prints (its date,
command, seeds, budget, both verdicts per setup and the Markdown) to
:func:`engine.core.paths.claims_table_path`, and the app shows it (views/overview.py). Plain JSON, no numeric
library: a page script may import this."""

from __future__ import annotations

import json
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


def record(
    rows: Sequence[ClaimRow], *, command: str, seeds: Sequence[int], out: str, markdown: str
) -> dict[str, Any]:
    """The saved form of a table: when, the command, the seeds, where the runs are, and one entry per
    setup (its cells, updates, budget and both verdicts)."""
    from engine.claims.table import COLUMNS, cells

    return {
        "format": FORMAT,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "command": command,
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


def save(table: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``table`` to ``path`` (default :func:`engine.core.paths.claims_table_path`) atomically; the
    path."""
    path = path or paths.claims_table_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(table, ensure_ascii=False, indent=1))
    except OSError as err:
        refusal = paths.not_writable(err, path.parent)
        why = err.strerror or err
        raise refusal or ConfigError(f"cannot save the claims table to {path}: {why}") from None
    return path


def load(path: Path | None = None) -> dict[str, Any] | None:
    """The saved table at ``path`` (default :func:`engine.core.paths.claims_table_path`); None when there is
    none. A file that is not a saved table raises :class:`ConfigError` (one line naming it)."""
    path = path or paths.claims_table_path()
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
