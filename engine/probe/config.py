"""Settings of one probe run (``python -m engine probe``), checked when made."""

from __future__ import annotations

from dataclasses import dataclass

from engine.validate import require_int, require_number

MAX_STEPS = 1_000_000


@dataclass
class ProbeConfig:
    """Settings of one probe run (CLI: ``python -m engine probe``)."""

    data: str = "demo"
    data_dir: str | None = None
    text_col: str | None = None
    label_col: str | None = None
    split: str | None = None
    encoder: str | None = None
    pooling: str | None = None
    steps: int = 1000
    lr: float = 1e-3
    metric_every: int = 1
    sample_size: int | None = None
    limit: int | None = None
    seed: int = 0
    device: str = "auto"
    snapshot_every: int = 0
    snapshot_limit: int = 2000

    def __post_init__(self) -> None:
        require_int("steps", self.steps, 1, MAX_STEPS)
        require_int("metric_every", self.metric_every, 1, MAX_STEPS)
        require_int("snapshot_every", self.snapshot_every, 0, MAX_STEPS)
        require_int("snapshot_limit", self.snapshot_limit, 2, 1_000_000)
        if self.sample_size is not None:
            require_int("sample_size", self.sample_size, 2, 10_000_000)
        if self.limit is not None:
            require_int("limit", self.limit, 2, 10_000_000)
        require_int("seed", self.seed, 0, 2**63 - 1)
        self.lr = require_number("learning rate", self.lr, 0.0, 10.0, open_low=True)
