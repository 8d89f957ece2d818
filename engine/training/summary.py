"""The summary of a run that trains an encoder on views of sentences (SimCSE, JEPA)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.compute.device import precision_name, resolve_device
from engine.core import measures, paths
from engine.core.errors import ConfigError, one_line
from engine.core.measures import LABELLED_SET_COLUMNS
from engine.training.config import GEOMETRY_COLUMNS, TrainingConfig
from engine.training.data import default_sets, eval_set_label

#: columns whose first and last logged values every such summary reports (``<column>_start`` / ``_end``); an
#: experiment adds its own before the probe's
EVALUATED_COLUMNS = (
    measures.STS_SPEARMAN,
    measures.ALIGNMENT,
    measures.UNIFORMITY,
    measures.ISOSCORE,
    *GEOMETRY_COLUMNS,
)


def summary_columns(own: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The columns a summary reports start and end of: the evaluated ones, the experiment's ``own``, the
    probe's."""
    return (*EVALUATED_COLUMNS, *own, *LABELLED_SET_COLUMNS)


def training_summary(
    rows: list[dict[str, Any]], config: TrainingConfig, views: str, columns: tuple[str, ...]
) -> dict[str, Any]:
    """The summary of a run: its views, data sets, evaluation set and precision; start / end of ``columns``;
    best STS Spearman; loss at start and mean of the last 10; the time split between training and
    evaluation."""

    def series(column: str) -> list[tuple[int, float]]:
        return [
            (int(r["step"]), float(r[column]))
            for r in rows
            if r.get(column) is not None and math.isfinite(float(r[column]))
        ]

    out: dict[str, Any] = {"views": views, "train_and_eval": list(default_sets(config))}
    folder = paths.data_dir(config.data_dir)  # the data folder it read (None: the built-in demo sets only)
    out["data_dir"] = None if folder is None else str(folder)
    try:
        out["eval_set"] = eval_set_label(config)
    except Exception as err:  # noqa: BLE001 - the label must never lose a summary
        out["eval_set"] = f"{default_sets(config)[1]} (unreadable: {one_line(err)})"
    try:
        out["precision"] = precision_name(resolve_device(config.device), config.precision)
    except ConfigError:
        out["precision"] = config.precision
    for column in columns:
        values = series(column)
        if values:
            out[f"{column}_start"], out[f"{column}_end"] = values[0][1], values[-1][1]
    sts = series("sts_spearman")
    if sts:
        out["best_step"], out["sts_spearman_best"] = max(sts, key=lambda item: item[1])
    losses = [value for _, value in series("loss")]
    if losses:
        out["loss_first"], out["loss_last10"] = losses[0], float(np.mean(losses[-10:]))
    train_s = max((value for _, value in series("seconds")), default=0.0)
    eval_s = max((value for _, value in series("eval_seconds")), default=0.0)
    out.update(
        train_seconds=train_s, eval_seconds=eval_s, eval_overhead=eval_s / train_s if train_s else None
    )
    return out
