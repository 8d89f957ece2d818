"""Running the claims table: every setup over the seeds, one ordinary probe run folder per seed; the rows.

Layout: ``<out>/<setup key>/runs/seed-<k>/`` (ordinary run folders). A member whose folder already holds a
finished run with the same settings is read, not run again, so a table interrupted half-way continues where
it stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.claims.setups import SHORT, ClaimSetup
from engine.claims.table import ClaimRow, claim_row
from engine.errors import EmbedlabError, one_line

log = logging.getLogger(__name__)

#: the settings a claims run may shrink to fit a machine (``--steps``, ``--limit``, ``--metric-every``)
BUDGET_KNOBS = ("steps", "limit", "metric_every")
Reporter = Callable[[str], None]


def member_settings(
    setup: ClaimSetup, seed: int, *, short: bool = False, budget: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The probe config fields of ``setup``'s run with ``seed``: the setup's settings, then ``--short``'s,
    then the budget (a ``limit`` only shrinks; a setup that measures a sample keeps all its items and its
    ``metric_every``)."""
    fields = {**setup.settings, "seed": seed}
    given = {name: value for name, value in (budget or {}).items() if value is not None}
    for name, value in {**(SHORT if short else {}), **given}.items():
        if name in ("limit", "metric_every") and fields.get("sample_size") is not None and not short:
            continue  # App. A: all items, the metrics on a sample after every update (cheap)
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


def _finished_with(folder: Path, fields: dict[str, Any]) -> dict[str, Any] | None:
    """The summary of a finished run in ``folder`` made with ``fields`` (None: none, or other settings)."""
    from engine.runlog import read_json, read_summary

    try:
        summary = read_summary(folder)
        config = read_json(folder / "config.json")
    except (OSError, ValueError, EmbedlabError):
        return None
    if not summary or summary.get("state") != "finished":
        return None
    if any(config.get(key) != value for key, value in fields.items() if key != "data_dir"):
        return None
    return summary


def run_member(folder: Path, fields: dict[str, Any]) -> dict[str, Any]:
    """One seed's probe run into ``folder`` (an ordinary run folder); its summary."""
    from engine.experiments import EXPERIMENTS
    from engine.runlog.swap import remove_tree
    from engine.runner import run_experiment

    done = _finished_with(folder, fields)
    if done is not None:
        return done
    if folder.exists():  # a stopped, failed or other-settings run: made again from scratch
        remove_tree(folder)
    folder.mkdir(parents=True)
    config = EXPERIMENTS["probe"].make_config(**fields)
    return run_experiment("probe", config, folder)


def run_setup(
    setup: ClaimSetup,
    seeds: Sequence[int],
    out: Path,
    *,
    short: bool = False,
    budget: dict[str, Any] | None = None,
    data_dir: str | None = None,
    report: Reporter = print,
) -> ClaimRow:
    """``setup`` over ``seeds`` in ``out/<key>/runs/seed-<k>``, one after another; its row."""
    summaries, failed = [], []
    items = 0
    for seed in seeds:
        fields = member_settings(setup, seed, short=short, budget=budget)
        if data_dir is not None:
            fields["data_dir"] = data_dir
        folder = out / setup.key / "runs" / f"seed-{seed}"
        try:
            summary = run_member(folder, fields)
        except EmbedlabError as err:
            failed.append(f"seed {seed}: {one_line(err)}")
            report(f"{setup.key} seed {seed}: failed: {one_line(err)}")
            continue
        summaries.append(summary)
        items = items or count_items(fields)
        report(
            f"{setup.key} seed {seed}: r {summary.get('pearson_r')}, {summary.get('wall_seconds', 0):.0f} s"
        )
    return claim_row(setup, summaries, items, failed)
