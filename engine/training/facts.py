"""What the figures and the replay say about a run that trains an encoder (SimCSE, JEPA): the data its
measures come from and the data it trained and evaluated on (read through :mod:`engine.experiments`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import paths
from engine.data.names import evaluation_set, labelled_set

#: measured on the evaluation pairs (the others: on the training batches, or on the labelled set as probe_*)
EVALUATED = ("alignment", "uniformity", "sts_spearman", "isoscore")


def measured_on(
    config: Mapping[str, Any], summary: Mapping[str, Any] | None = None, metric: str | None = None
) -> str | None:
    """The data ``metric`` (None: the run's evaluation) was measured on, in words: the evaluation pairs, from
    the run's summary (``eval_set``, else ``train_and_eval``) or, before the summary exists, as the run
    resolves them (the config's ``eval``, else STS-B dev when the data folder holds ``stsb/``, else the
    built-in demo pairs); a ``probe_*`` measure: the labelled set; None for the others (the training loss)."""
    if metric is not None and metric not in EVALUATED:
        if metric.startswith("probe_") and config.get("probe"):
            return labelled_set({"data": config["probe"]})
        return None
    summary = summary or {}
    name = summary.get("eval_set")
    sets = summary.get("train_and_eval")
    if not name and isinstance(sets, list | tuple) and len(sets) > 1:
        name = sets[1]
    if not name:
        name = config.get("eval")
    if not name:
        folder = paths.data_dir(config.get("data_dir"))
        name = "stsb" if folder is not None and (folder / "stsb").is_dir() else "demo-pairs"
    return evaluation_set(str(name))


def data_rows(config: Mapping[str, Any], summary: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The replay's data rows of a run: training data, evaluation, views and labelled set."""
    summary = summary or {}
    sets = summary.get("train_and_eval") if isinstance(summary.get("train_and_eval"), list) else []
    rows = [
        (
            "Training data",
            str(sets[0] if sets else config.get("train") or "default (wiki1m / snli, else the demo)"),
        ),
        (
            "Evaluation",
            str(sets[1] if len(sets) > 1 else config.get("eval") or "default (STS-B dev, else demo pairs)"),
        ),
    ]
    if summary.get("views"):
        rows.append(("Views", str(summary["views"])))
    if config.get("probe"):
        rows.append(("Labelled set", str(config["probe"])))
    return rows
