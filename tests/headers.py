"""The ``metrics.csv`` headers that several tests expect, written out once (literally, not read from the
engine, so that a test still fails when a run's header changes)."""

from __future__ import annotations

#: a probe run's header (tests/cli/test_cli.py: the CLI; tests/probe/test_probe.py: the runner)
PROBE_HEADER = [
    "step",
    "loss",
    "accuracy",
    "micro_f1",
    "isoscore",
    "silhouette",
    "rankme",
    "average_cosine",
    "partition_isotropy",
    "uniformity",
    "alignment",
    "seconds",
]
#: the first columns of a run of the training core (SimCSE, JEPA): the step, the loss, the Figure-2
#: measures and IsoScore
TRAINING_FIRST = ["step", "loss", "alignment", "uniformity", "sts_spearman", "isoscore"]
