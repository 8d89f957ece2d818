"""The registry entry of an experiment built on the training core (SimCSE, JEPA): its columns, the first
measures its page offers, the encoder smoke settings, and its parts as the experiment's entry names them
(objects: the entry's own functions import the training loop on call, so that reading it imports neither
torch nor the loop)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import measures
from engine.core.declaration import ENCODER_SMOKE, Experiment, declare
from engine.core.measures import LABELLED_SET_COLUMNS
from engine.training.config import BASE_COLUMNS, TIME_COLUMNS

#: the measures every training page offers first: the loss, STS and the Figure-2 pair, IsoScore
FIRST_MEASURES = (
    measures.LOSS,
    measures.STS_SPEARMAN,
    measures.ALIGNMENT,
    measures.UNIFORMITY,
    measures.ISOSCORE,
)


def training_experiment(
    kind: str, title: str, *, config_class: type, own: Sequence[str] = (), **fields: Any
) -> Experiment:
    """The entry of experiment ``kind`` trained by the core: its ``metrics.csv`` header (the fallback of a
    config without ``metric_columns()``: the base columns, its ``own``, the labelled set's, the time split;
    the spectrum goes to ``spectrum.csv``), the encoder smoke settings, and its parts (``generator``,
    ``summarize``, ``cli``, ``presets``, ``measured_on``, ``describe``, lesson, section) as given."""
    return declare(
        kind,
        title,
        config_class=config_class,
        columns=(*BASE_COLUMNS, *own, *LABELLED_SET_COLUMNS, *TIME_COLUMNS),
        smoke=ENCODER_SMOKE,
        **fields,
    )
