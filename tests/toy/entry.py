"""The toy experiment: gradient descent on f(x) = x², logging the loss x² and a measure of its own, the
distance |x| to the minimum, at every step. Declared with the one call a real experiment's entry makes
(:func:`engine.core.declaration.declare`); ``tests/pages/test_toy_experiment.py`` registers it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

from engine.core.declaration import Section, declare
from engine.core.knobs import knob, validate
from engine.core.measure_spec import Measure
from engine.runlog.events import Row


@dataclass
class ToyConfig:
    """Two knobs: the steps and the learning rate."""

    steps: int = knob(
        20, low=1, high=10_000, unit="steps", help="Gradient steps.", label="Steps", widget="number"
    )
    lr: float = knob(
        0.1, low=0.0, high=0.99, open_low=True, help="Step size.", label="Learning rate", widget="number"
    )

    def __post_init__(self) -> None:
        validate(self)


def train_toy(config: ToyConfig, stop: threading.Event) -> Iterator[Row]:
    """x ← x − lr · 2x from x = 1, one row a step (the loss x²), until ``steps`` or a stop."""
    x = 1.0
    for step in range(config.steps + 1):
        if stop.is_set():
            return
        yield Row(step, {"loss": x * x, DISTANCE.name: abs(x)})
        x -= config.lr * 2 * x


#: the toy's own measure, added to the measure registry while the toy is registered
DISTANCE = Measure(
    "toy_distance",
    "Distance to the minimum",
    "How far the toy's x is from the minimum of x², at 0.",
    r"|x|",
    "the toy experiment (tests/toy)",
    "lower",
    "x is further from the minimum",
    (0.0, None),
)

EXPERIMENT = declare(
    "toy",
    "Toy",
    config_class=ToyConfig,
    generator=train_toy,
    columns=("step", "loss", DISTANCE.name),
    vectors=(),
    own_measures=(DISTANCE,),
    section=Section(
        page="tests/toy/page.py",
        metrics=("loss", DISTANCE.name),
        drawn=("loss", DISTANCE.name),
        pair=("loss", DISTANCE.name),
        empty="No toy runs yet.",
        title="Toy experiment",
    ),
    smoke={"steps": 4},
)
