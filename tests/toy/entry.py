"""The toy experiment: gradient descent on f(x) = x², logging the loss x² of every step."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

from engine.core.declaration import Experiment, Section
from engine.core.knobs import knob, validate
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
        yield Row(step, {"loss": x * x})
        x -= config.lr * 2 * x


EXPERIMENT = Experiment(
    kind="toy",
    title="Toy",
    config_class="tests.toy.entry:ToyConfig",
    generator="tests.toy.entry:train_toy",
    columns=("step", "loss"),
    section=Section(
        page="tests/toy/page.py",
        metrics=("loss",),
        drawn=("loss",),
        pair=("loss", "loss"),
        empty="No toy runs yet.",
        title="Toy experiment",
    ),
    smoke={"steps": 4},
)
