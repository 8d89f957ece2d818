"""The registry entry of an experiment built on the training core (SimCSE, JEPA): its columns, the first
measures its page offers, and its code by convention in ``engine/<kind>/`` (``train``, ``cli``, ``presets``,
``facts``). Plain data and lazy references only: reading it imports neither torch nor the training loop."""

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
    kind: str, title: str, *, config_class: str, own: Sequence[str] = (), **fields: Any
) -> Experiment:
    """The entry of experiment ``kind`` trained by the core: its ``metrics.csv`` header (the fallback of a
    config without ``metric_columns()``: the base columns, its ``own``, the labelled set's, the time split;
    the spectrum goes to ``spectrum.csv``), ``engine.<kind>.train:train_<kind>`` and ``:summarize``, its CLI
    ``engine.<kind>.cli``, the encoder smoke settings, and the other ``fields`` (lesson, section) as given."""
    package = f"engine.{kind}"
    return declare(
        kind,
        package,
        title=title,
        config_class=config_class,
        generator=f"{package}.train:train_{kind}",
        columns=(*BASE_COLUMNS, *own, *LABELLED_SET_COLUMNS, *TIME_COLUMNS),
        summarize=f"{package}.train:summarize",
        cli=f"{package}.cli",
        smoke=ENCODER_SMOKE,
        **fields,
    )
