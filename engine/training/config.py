"""What the training core reads from an experiment's config, the columns a run logs, and when it evaluates.

Every run logs :data:`BASE_COLUMNS` (the loss, the Figure-2 measures of Gao et al. 2021 and the isotropy
family on the evaluation sentences), then the experiment's own columns, then
:data:`engine.core.measures.LABELLED_SET_COLUMNS` with a labelled set, then the time split
(:func:`metric_columns`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.core import measures

#: the isotropy family measured at each evaluation beside IsoScore (:data:`engine.core.measures.GEOMETRY`), on
# the : evaluation sentences; with a labelled set also on it, as ``probe_<name>``
GEOMETRY_COLUMNS = measures.GEOMETRY
BASE_COLUMNS = (
    "step",
    measures.LOSS,
    measures.ALIGNMENT,
    measures.UNIFORMITY,
    measures.STS_SPEARMAN,
    measures.ISOSCORE,
    *GEOMETRY_COLUMNS,
)
TIME_COLUMNS = ("seconds", "eval_seconds")


class TrainingConfig(Protocol):
    """The fields of a config that the training core reads (the shared knobs of
    :mod:`engine.core.shared_knobs`); a config without ``mode`` trains on plain sentences
    (``mode="unsup"``)."""

    train: str | None
    data_dir: str | None
    encoder: str | None
    pooler: str
    dropout: float
    steps: int
    batch_size: int
    lr: float
    max_len: int
    eval: str | None
    eval_limit: int | None
    eval_every: int
    probe: str | None
    probe_limit: int | None
    seed: int
    device: str
    snapshot_every: int
    train_limit: int | None
    precision: str


def metric_columns(config: TrainingConfig, own: Sequence[str] = ()) -> list[str]:
    """CSV columns: the base ones, the experiment's ``own``, the labelled set's columns only when one is
    given, the time split."""
    probe = list(measures.LABELLED_SET_COLUMNS) if config.probe else []
    return [*BASE_COLUMNS, *own, *probe, *TIME_COLUMNS]


def is_eval_step(step: int, config: TrainingConfig) -> bool:
    """Step 0, every ``eval_every``-th step, the last one, and every snapshot step are evaluated."""
    return step % config.eval_every == 0 or step == config.steps or is_snapshot_step(step, config)


def is_snapshot_step(step: int, config: TrainingConfig) -> bool:
    """Every ``snapshot_every``-th step and the last one, when snapshots are on."""
    return bool(config.snapshot_every) and (step % config.snapshot_every == 0 or step == config.steps)
